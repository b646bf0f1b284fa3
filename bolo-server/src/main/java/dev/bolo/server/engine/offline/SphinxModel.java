package dev.bolo.server.engine.offline;

import edu.cmu.sphinx.frontend.FrontEnd;
import edu.cmu.sphinx.frontend.util.StreamDataSource;
import edu.cmu.sphinx.linguist.acoustic.AcousticModel;
import edu.cmu.sphinx.linguist.acoustic.UnitManager;
import edu.cmu.sphinx.linguist.acoustic.tiedstate.Loader;
import edu.cmu.sphinx.linguist.dictionary.Dictionary;
import edu.cmu.sphinx.recognizer.Recognizer;
import edu.cmu.sphinx.util.props.Configurable;
import edu.cmu.sphinx.util.props.ConfigurationManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Sphinx4's US-English model: the acoustic model, its unit manager and the pronunciation
 * dictionary, loaded once per recogniser (see {@link #newRecognizer}). Each recogniser also gets
 * its own language model and search, whose caches are not thread safe.
 *
 * <p>{@link #newRecognizer} is not thread safe: call it from one thread (the loader does).
 */
final class SphinxModel implements NoteRecognizer.Factory {

  private static final String CONFIG = "sphinx4.config.xml";

  private final SearchTuning tuning;
  private final UnitManager unitManager;
  private final Loader loader;
  private final AcousticModel acousticModel;
  private final AtomicBoolean handedOut = new AtomicBoolean();
  private final SharedDictionary dictionary;

  private SphinxModel(
      SearchTuning tuning,
      UnitManager unitManager,
      Loader loader,
      AcousticModel acousticModel,
      SharedDictionary dictionary) {
    this.tuning = tuning;
    this.unitManager = unitManager;
    this.loader = loader;
    this.acousticModel = acousticModel;
    this.dictionary = dictionary;
  }

  /** Loads the acoustic model and dictionary from the class path (sphinx4-data). */
  static SphinxModel load(SearchTuning tuning) {
    ConfigurationManager configuration = configuration(tuning);
    UnitManager unitManager = configuration.lookup("unitManager");
    Loader loader = configuration.lookup("acousticModelLoader");
    AcousticModel acousticModel = configuration.lookup("acousticModel");
    Dictionary dictionary = configuration.lookup("dictionary");
    SharedDictionary shared = new SharedDictionary(dictionary);
    try {
      acousticModel.allocate();
      shared.allocate();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the Sphinx4 model from the class path", e);
    }
    return new SphinxModel(tuning, unitManager, loader, acousticModel, shared);
  }

  /**
   * A new recogniser, allocated and ready for its first note. The first one decodes with this
   * model; every further one loads a model of its own, because Sphinx4's acoustic model keeps
   * per-frame scoring state (cached senone scores, top mixture components) inside itself: two
   * recognisers decoding at once through one model corrupt each other's scores and fail.
   */
  @Override
  public SphinxRecognizer newRecognizer() {
    if (handedOut.getAndSet(true)) {
      return load(tuning).newRecognizer();
    }
    ConfigurationManager configuration = configuration(tuning);
    share(configuration, "unitManager", unitManager);
    share(configuration, "acousticModelLoader", loader);
    share(configuration, "acousticModel", acousticModel);
    share(configuration, "dictionary", dictionary);
    Recognizer recognizer = configuration.lookup("recognizer");
    recognizer.allocate();
    FrontEnd frontEnd = configuration.lookup("frontEnd");
    StreamDataSource source = configuration.lookup("dataSource");
    return new SphinxRecognizer(recognizer, frontEnd, source);
  }

  private static void share(ConfigurationManager configuration, String name, Configurable shared) {
    configuration.removeConfigurable(name);
    configuration.addConfigurable(shared, name);
  }

  private static ConfigurationManager configuration(SearchTuning tuning) {
    URL config = Objects.requireNonNull(SphinxModel.class.getResource(CONFIG), CONFIG);
    ConfigurationManager configuration = new ConfigurationManager(config);
    setGlobal(configuration, "absoluteBeamWidth", Integer.toString(tuning.absoluteBeamWidth()));
    setGlobal(configuration, "relativeBeamWidth", number(tuning.relativeBeamWidth()));
    setGlobal(
        configuration, "absoluteWordBeamWidth", Integer.toString(tuning.absoluteWordBeamWidth()));
    setGlobal(configuration, "relativeWordBeamWidth", number(tuning.relativeWordBeamWidth()));
    setGlobal(configuration, "languageWeight", number(tuning.languageWeight()));
    setGlobal(configuration, "wordInsertionProbability", number(tuning.wordInsertionProbability()));
    return configuration;
  }

  private static void setGlobal(ConfigurationManager configuration, String name, String value) {
    configuration.setGlobalProperty(name, value);
  }

  private static String number(double value) {
    return String.format(Locale.ROOT, "%s", value);
  }
}
