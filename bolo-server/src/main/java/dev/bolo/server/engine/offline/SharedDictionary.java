package dev.bolo.server.engine.offline;

import edu.cmu.sphinx.linguist.dictionary.Dictionary;
import edu.cmu.sphinx.linguist.dictionary.Word;
import edu.cmu.sphinx.util.props.PropertySheet;
import java.io.IOException;

/**
 * One pronunciation dictionary for every recogniser. Sphinx4's {@code TextDictionary} reloads its
 * file on every {@code allocate()} and fills a plain hash map on lookup; this wrapper loads it once
 * and serialises lookups, so recognisers can share it across threads.
 */
final class SharedDictionary implements Dictionary {

  private final Dictionary delegate;
  private boolean allocated;

  SharedDictionary(Dictionary delegate) {
    this.delegate = delegate;
  }

  @Override
  public void newProperties(PropertySheet ps) {
    // Configured once, before it is shared; the recognisers' configurations must not change it.
  }

  @Override
  public synchronized void allocate() throws IOException {
    if (!allocated) {
      delegate.allocate();
      allocated = true;
    }
  }

  @Override
  public void deallocate() {
    // Shared: the model owns its lifetime, not any one recogniser.
  }

  @Override
  public synchronized Word getWord(String text) {
    return delegate.getWord(text);
  }

  @Override
  public synchronized Word getSentenceStartWord() {
    return delegate.getSentenceStartWord();
  }

  @Override
  public synchronized Word getSentenceEndWord() {
    return delegate.getSentenceEndWord();
  }

  @Override
  public synchronized Word getSilenceWord() {
    return delegate.getSilenceWord();
  }

  @Override
  public synchronized Word[] getFillerWords() {
    return delegate.getFillerWords();
  }
}
