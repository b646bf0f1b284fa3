package dev.bolo.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ModelAliasesTest {

  @Test
  void anAliasResolvesToItsModelAndAnyOtherNameToItself() {
    ModelAliases aliases = ModelAliases.parse("whisper-1 = large-v3, fast=turbo");

    assertThat(aliases.resolve("whisper-1")).isEqualTo("large-v3");
    assertThat(aliases.resolve("fast")).isEqualTo("turbo");
    assertThat(aliases.resolve("large-v3")).isEqualTo("large-v3");
    assertThat(aliases.aliasesOf("large-v3")).containsExactly("whisper-1");
  }

  @Test
  void openAisNamesStandForOneModelExceptTheModelItself() {
    assertThat(ModelAliases.openAiNamesFor("moonshine-tiny-en").byAlias())
        .containsOnlyKeys(ModelAliases.OPENAI_MODEL_NAMES);
    assertThat(ModelAliases.openAiNamesFor("whisper-1").aliasesOf("whisper-1"))
        .isEqualTo(List.of("gpt-4o-transcribe", "gpt-4o-mini-transcribe"));
  }

  @Test
  void malformedAliasesAreRefusedWithTheEntry() {
    assertThatThrownBy(() -> ModelAliases.parse("whisper-1"))
        .hasMessage("not alias=model: whisper-1");
    assertThatThrownBy(() -> ModelAliases.parse("a=b,a=c")).hasMessage("alias given twice: a");
    assertThatThrownBy(() -> ModelAliases.parse("a=b,b=c"))
        .hasMessage("an alias cannot stand for another alias: b");
    assertThatThrownBy(() -> ModelAliases.parse("a=a"))
        .hasMessage("a model cannot be an alias of itself: a");
    assertThat(ModelAliases.parse(" ").byAlias()).isEmpty();
  }

  @Test
  void theNamesOfModelsFollowEachModelWithItsAliases() {
    ModelAliases aliases = ModelAliases.parse("whisper-1=large-v3,fast=turbo,quick=turbo,x=gone");

    assertThat(aliases.namesOf(List.of("large-v3", "turbo", "small")))
        .isEqualTo(
            "large-v3 (also asked for as whisper-1), turbo (also asked for as fast, quick), small");
  }
}
