package io.semafor.cli;

import java.io.PrintStream;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import org.jspecify.annotations.Nullable;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The logging of client subcommands (everything but {@code semafor server}, {@code cluster} and
 * {@code bench}): warnings and errors on stderr, in the format of the jar's logback.xml, without
 * Logback. Configuring Logback (its XML parsed by Joran) took about a third of a {@code semafor
 * get}'s start-up (decision 0025); the server keeps Logback. {@link Main#main} selects this
 * provider through the {@code slf4j.provider} system property, unless the user chose a provider or
 * a Logback configuration file.
 */
public final class ClientLogging implements SLF4JServiceProvider {
  private final ILoggerFactory loggers = WarnLogger::new;
  private final IMarkerFactory markers = new BasicMarkerFactory();
  private final MDCAdapter mdc = new NOPMDCAdapter();

  /** For {@link java.util.ServiceLoader}-style instantiation by SLF4J. */
  public ClientLogging() {}

  @Override
  public ILoggerFactory getLoggerFactory() {
    return loggers;
  }

  @Override
  public IMarkerFactory getMarkerFactory() {
    return markers;
  }

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }

  @Override
  public String getRequestedApiVersion() {
    return "2.0.99";
  }

  @Override
  public void initialize() {}

  /** WARN and ERROR to {@link System#err}: {@code HH:mm:ss.SSS LEVEL i.s.c.i.Class - message}. */
  static final class WarnLogger extends LegacyAbstractLogger {
    private static final long serialVersionUID = 1L;
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

    private final String shortName;

    WarnLogger(String name) {
      this.name = name;
      this.shortName = abbreviate(name);
    }

    /** {@code io.semafor.client.internal.Link} → {@code i.s.c.i.Link}. */
    static String abbreviate(String name) {
      int last = name.lastIndexOf('.');
      if (last < 0) {
        return name;
      }
      StringBuilder b = new StringBuilder();
      boolean start = true;
      for (int i = 0; i < last; i++) {
        char c = name.charAt(i);
        if (start) {
          b.append(c).append('.');
        }
        start = c == '.';
      }
      return b.append(name, last + 1, name.length()).toString();
    }

    @Override
    public boolean isTraceEnabled() {
      return false;
    }

    @Override
    public boolean isDebugEnabled() {
      return false;
    }

    @Override
    public boolean isInfoEnabled() {
      return false;
    }

    @Override
    public boolean isWarnEnabled() {
      return true;
    }

    @Override
    public boolean isErrorEnabled() {
      return true;
    }

    @Override
    protected @Nullable String getFullyQualifiedCallerName() {
      return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(
        Level level,
        @Nullable Marker marker,
        String messagePattern,
        @Nullable Object @Nullable [] arguments,
        @Nullable Throwable throwable) {
      String message = MessageFormatter.basicArrayFormat(messagePattern, arguments);
      String line =
          String.format(
              "%s %-5s %s - %s",
              TIME.format(LocalTime.now(ZoneId.systemDefault())), level, shortName, message);
      PrintStream err = System.err;
      synchronized (err) {
        err.println(line);
        if (throwable != null) {
          throwable.printStackTrace(err);
        }
      }
    }
  }
}
