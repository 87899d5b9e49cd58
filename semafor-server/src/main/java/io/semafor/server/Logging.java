package io.semafor.server;

import java.net.URL;
import java.util.Locale;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * A running server's logging: everything through SLF4J (java.util.logging bridged, which gRPC
 * inside Ratis uses), to stderr, as dated text or one JSON object a line. For the server's own
 * command lines ({@code semafor server}, {@code java -jar semafor-server.jar}); an application
 * embedding the server keeps its own logging and never calls this.
 */
public final class Logging {
  private Logging() {}

  /** How log lines look. */
  public enum Format {
    /** {@code 2025-01-31T14:03:07.123+01:00 INFO [thread] logger - message}. */
    TEXT,
    /** One JSON object a line (Logback's {@code JsonEncoder}), for log collectors. */
    JSON
  }

  /** The classpath resource with the server's Logback configuration. */
  static final String CONFIG = "io/semafor/server/logback-server.xml";

  /**
   * Routes java.util.logging to SLF4J and, when Logback is the SLF4J backend and the operator did
   * not name a configuration of their own ({@code -Dlogback.configurationFile}), configures it for
   * a server writing {@code format}. Call once, before the server starts.
   *
   * @return false if the operator's own Logback configuration (or another backend) was kept, so
   *     {@code format} was not applied
   */
  public static boolean configure(Format format) {
    if (!SLF4JBridgeHandler.isInstalled()) {
      // JUL's default handler would print its own two-line, differently dated records
      SLF4JBridgeHandler.removeHandlersForRootLogger();
      SLF4JBridgeHandler.install();
    }
    if (System.getProperty("logback.configurationFile") != null) {
      return false;
    }
    ILoggerFactory factory = LoggerFactory.getILoggerFactory();
    // by name: Logback is optional for the server module, and this must not load its classes
    // when another backend is in use
    if (!factory.getClass().getName().equals("ch.qos.logback.classic.LoggerContext")) {
      return false;
    }
    URL config = Logging.class.getClassLoader().getResource(CONFIG);
    if (config == null) {
      return false;
    }
    return Logback.configure(factory, config, format.name().toLowerCase(Locale.ROOT));
  }

  /** What touches Logback's classes, loaded only when Logback is the backend. */
  private static final class Logback {
    private Logback() {}

    static boolean configure(ILoggerFactory factory, URL config, String format) {
      ch.qos.logback.classic.LoggerContext context = (ch.qos.logback.classic.LoggerContext) factory;
      context.reset();
      context.putProperty("SEMAFOR_LOG_FORMAT", format);
      ch.qos.logback.classic.joran.JoranConfigurator joran =
          new ch.qos.logback.classic.joran.JoranConfigurator();
      joran.setContext(context);
      try {
        joran.doConfigure(config);
      } catch (ch.qos.logback.core.joran.spi.JoranException e) {
        // Logback records the error in its status list and keeps logging to the console
        ch.qos.logback.core.util.StatusPrinter2 printer =
            new ch.qos.logback.core.util.StatusPrinter2();
        printer.printInCaseOfErrorsOrWarnings(context);
        return false;
      }
      return true;
    }
  }
}
