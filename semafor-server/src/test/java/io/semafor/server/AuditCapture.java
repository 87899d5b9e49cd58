package io.semafor.server;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.LoggerFactory;

/** The lines written to the audit logger while it is open, as their formatted messages. */
final class AuditCapture implements AutoCloseable {
  private final Logger logger = (Logger) LoggerFactory.getLogger("semafor.audit");
  private final List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
  private final ch.qos.logback.core.AppenderBase<ILoggingEvent> appender =
      new ch.qos.logback.core.AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
          lines.add(event.getFormattedMessage());
        }
      };

  private final ch.qos.logback.classic.Level level = logger.getLevel();

  private AuditCapture() {
    appender.start();
    logger.addAppender(appender);
    logger.setLevel(ch.qos.logback.classic.Level.INFO); // tests log at WARN
  }

  static AuditCapture start() {
    return new AuditCapture();
  }

  List<String> lines() {
    synchronized (lines) {
      return new ArrayList<>(lines);
    }
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
    logger.setLevel(level);
    appender.stop();
  }
}
