package dev.bolo.server.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What counts as having heard a sample note in a browser recording's transcript. */
class SampleNotesTest {

  private final SampleNotes groceries = SampleNotes.named("groceries");

  @Test
  void theNoteItselfAWordOrTwoMisheardAndTheNoteTwiceAreHeard() {
    assertThat(groceries.reference()).isEqualTo("remind me to buy milk and eggs on the way home");
    assertThat("Remind me to buy milk and eggs on the way home.").is(groceries.heard());
    // Seen in CI: a capture that dropped a block of samples, and the engine heard "a kiss".
    assertThat("remind me to buy milk and a kiss on the way home").is(groceries.heard());
    // Seen beside a load of 13 on 2 cores: four words misheard of eleven.
    assertThat("Remind me to buy a mill-candy son the way home.").is(groceries.heard());
    assertThat(
            "remind me to buy milk and eggs on the way home remind me to buy milk and eggs on the"
                + " way home")
        .is(groceries.heard());
  }

  @Test
  void silenceAnotherNoteOrAFragmentAreNotHeard() {
    assertThat("").isNot(groceries.heard());
    assertThat(SampleNotes.named("dentist").reference()).isNot(groceries.heard());
    assertThat("buy milk").isNot(groceries.heard());
    assertThat("remind me to buy a kiss on the train to rome").isNot(groceries.heard());
  }
}
