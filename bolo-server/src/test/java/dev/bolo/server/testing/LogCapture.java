package dev.bolo.server.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * Captures everything logged while open, rendered with every MDC entry and stack trace, with the
 * server's own loggers turned up to TRACE and the rest to INFO (the shipped configuration's root
 * level). Restores the levels on close. Thread safe.
 */
public final class LogCapture implements AutoCloseable {

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
  private final Logger root;
  private final Logger bolo;
  private final @Nullable Level rootLevel;
  private final @Nullable Level boloLevel;

  private LogCapture() {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    bolo = context.getLogger("dev.bolo");
    rootLevel = root.getLevel();
    boloLevel = bolo.getLevel();
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%level %logger %mdc - %msg%n%ex");
    encoder.start();
    appender.setContext(context);
    appender.setEncoder(encoder);
    appender.setOutputStream(bytes);
    appender.start();
    root.addAppender(appender);
    root.setLevel(Level.INFO);
    bolo.setLevel(Level.TRACE);
  }

  public static LogCapture start() {
    return new LogCapture();
  }

  /** What was logged so far. */
  public String text() {
    synchronized (bytes) {
      return bytes.toString(StandardCharsets.UTF_8);
    }
  }

  @Override
  public void close() {
    root.detachAppender(appender);
    appender.stop();
    root.setLevel(rootLevel);
    bolo.setLevel(boloLevel);
  }
}
