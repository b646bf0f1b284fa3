package dev.bolo.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bolo.server.engine.ModelAliases;
import dev.bolo.server.transcription.Transcriber;
import io.javalin.http.Context;
import java.util.List;
import java.util.Objects;

/**
 * {@code GET /v1/models} and {@code GET /v1/models/{model}} in OpenAI's shape: the models a device
 * may ask for on this gateway (its allow-list), for the SDKs' {@code models.list()} and {@code
 * models.retrieve()} and tools that probe an OpenAI-compatible server with them. Behind the {@link
 * DeviceGate} like every device route: the token, the device's rate and the drain are checked
 * there. Thread safe.
 */
final class ModelsHandler {

  private static final ObjectMapper JSON = HttpJson.MAPPER;

  /**
   * OpenAI's {@code created} is when the provider published a model; the gateway does not know it,
   * and 0 (the epoch) says so instead of a made-up date.
   */
  private static final long CREATED_UNKNOWN = 0;

  private final Transcriber transcriber;

  ModelsHandler(Transcriber transcriber) {
    this.transcriber = Objects.requireNonNull(transcriber, "transcriber");
  }

  void list(Context ctx) throws Exception {
    ObjectNode body = JSON.createObjectNode();
    body.put("object", "list");
    ArrayNode data = body.putArray("data");
    for (String model : transcriber.allowedModels()) {
      data.add(model(model, model));
      for (String alias : transcriber.modelAliases().aliasesOf(model)) {
        data.add(model(alias, model));
      }
    }
    ctx.status(200).contentType("application/json").result(JSON.writeValueAsBytes(body));
  }

  void one(Context ctx) throws Exception {
    String id = ctx.pathParam("model");
    List<String> allowed = transcriber.allowedModels();
    ModelAliases aliases = transcriber.modelAliases();
    String model = aliases.resolve(id);
    if (!allowed.contains(model)) {
      ErrorWriter.write(ctx, Dialect.OPENAI, Errors.modelNotOffered(id, aliases.namesOf(allowed)));
      return;
    }
    ctx.status(200)
        .contentType("application/json")
        .result(JSON.writeValueAsBytes(model(id, model)));
  }

  /**
   * OpenAI's model object for {@code id}, which is {@code model} or an alias of it. Fields of
   * Bolo's own, which OpenAI's SDKs ignore: {@code root}, the model an alias stands for (as
   * OpenAI's own model objects once named a model's base), {@code source}, where the weights of a
   * model the gateway runs itself come from, and {@code languages}, what the engine recognises when
   * that is not any language its provider takes.
   */
  private ObjectNode model(String id, String model) {
    ObjectNode node = JSON.createObjectNode();
    node.put("id", id);
    node.put("object", "model");
    node.put("created", CREATED_UNKNOWN);
    node.put("owned_by", transcriber.engine().name());
    node.put("root", model);
    String source = transcriber.engine().source(model);
    if (!source.isEmpty()) {
      node.put("source", source);
    }
    List<String> languages = transcriber.engine().languages();
    if (!languages.isEmpty()) {
      ArrayNode codes = node.putArray("languages");
      languages.forEach(codes::add);
    }
    return node;
  }
}
