package dev.bolo.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import dev.bolo.server.config.ServerConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies {@code BOLO_LOG_LEVEL} and {@code BOLO_LOG_FORMAT} once the configuration is read, so
 * that both work from the {@code BOLO_CONFIG} file too (logback.xml sees only the environment).
 *
 * <p>The JSON format is Logback's own {@link JsonEncoder}: one object per line with {@code
 * timestamp}, {@code level}, {@code loggerName}, {@code mdc} (the request's {@code request_id} and
 * {@code device}), {@code kvpList} (a request line's {@code status} and {@code duration_ms}), and
 * {@code formattedMessage}.
 */
final class LogSetup {

  private static final String JSON_APPENDER = "STDERR_JSON";
  private static final String JAVALIN = "io.javalin.Javalin";

  private LogSetup() {}

  /** Sets the root level and, for JSON, replaces the text appender on stderr. */
  static void apply(String level, ServerConfig.LogFormat format) {
    // Another SLF4J binding (a test's, an embedder's): its own configuration decides.
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return;
    }
    ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.toLevel(level.toUpperCase(Locale.ROOT)));
    // Javalin logs a failed start (port in use) with its whole stack trace; Main reports it in one
    // line on stderr instead.
    context.getLogger(JAVALIN).setLevel(Level.OFF);
    switch (format) {
      case TEXT -> {}
      case JSON -> useJson(context, root);
    }
  }

  private static void useJson(LoggerContext context, ch.qos.logback.classic.Logger root) {
    if (root.getAppender(JSON_APPENDER) != null) {
      return;
    }
    JsonEncoder encoder = new JsonEncoder();
    encoder.setContext(context);
    // What a log collector needs; the raw pattern and its arguments repeat the formatted message.
    encoder.setWithSequenceNumber(false);
    encoder.setWithNanoseconds(false);
    encoder.setWithContext(false);
    encoder.setWithMarkers(false);
    encoder.setWithMessage(false);
    encoder.setWithArguments(false);
    encoder.setWithFormattedMessage(true);
    encoder.start();
    ConsoleAppender<ILoggingEvent> json = new ConsoleAppender<>();
    json.setContext(context);
    json.setName(JSON_APPENDER);
    json.setTarget("System.err");
    json.setEncoder(encoder);
    json.start();
    List<Appender<ILoggingEvent>> text = new ArrayList<>();
    root.iteratorForAppenders().forEachRemaining(text::add);
    root.addAppender(json);
    for (Appender<ILoggingEvent> appender : text) {
      root.detachAppender(appender);
      appender.stop();
    }
  }
}
