package io.semafor.server.options;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Where a server option's value comes from when the command line does not give it: the {@code
 * SEMAFOR_*} environment variable named after the option ({@code --max-sessions} reads {@code
 * SEMAFOR_MAX_SESSIONS}), else the {@code --config} file's key named after it ({@code
 * max-sessions}), else the option's own default. So the precedence is flags, then environment, then
 * file, then defaults.
 *
 * <p>The file is a Java properties file ({@code key = value}, {@code #} comments), read with {@link
 * Properties}. A key that names no option is refused, so a misspelt setting is not silently
 * ignored.
 *
 * <p>Immutable once built; picocli calls it on the parsing thread.
 */
public final class ConfigDefaults implements CommandLine.IDefaultValueProvider {
  /** The environment variable that names the file when {@code --config} does not. */
  public static final String CONFIG_VARIABLE = "SEMAFOR_CONFIG";

  private final Map<String, String> environment;
  private final Properties file;

  private ConfigDefaults(Map<String, String> environment, Properties file) {
    this.environment = Map.copyOf(environment);
    this.file = file;
  }

  /**
   * Installs the defaults for the server command {@code line}, which is about to parse {@code
   * args}: finds the file ({@code --config} in {@code args}, else {@code SEMAFOR_CONFIG} in {@code
   * environment}), reads it and checks its keys.
   *
   * @throws BadConfig if the file cannot be read or has a key that names no option of {@code line}
   */
  public static void install(CommandLine line, List<String> args, Map<String, String> environment) {
    Path path = locate(args, environment);
    Properties file = new Properties();
    if (path != null) {
      file = read(path);
      Set<String> known = keys(line.getCommandSpec());
      for (String key : new TreeSet<>(file.stringPropertyNames())) {
        if (!known.contains(key)) {
          throw new BadConfig(
              path
                  + ": unknown setting '"
                  + key
                  + "' (settings are the server's long options without the dashes, e.g. port)");
        }
      }
    }
    line.setDefaultValueProvider(new ConfigDefaults(environment, file));
  }

  @Override
  public @Nullable String defaultValue(ArgSpec arg) {
    if (!(arg instanceof OptionSpec option)) {
      return null;
    }
    String key = key(option);
    if (key == null) {
      return null;
    }
    String fromEnvironment = environment.get(variable(key));
    if (fromEnvironment != null) {
      return fromEnvironment.strip();
    }
    String fromFile = file.getProperty(key);
    return fromFile == null ? null : fromFile.strip();
  }

  /** The environment variable of the setting {@code key}: {@code SEMAFOR_MAX_SESSIONS}. */
  public static String variable(String key) {
    return "SEMAFOR_" + key.toUpperCase(Locale.ROOT).replace('-', '_');
  }

  /**
   * The file's key for {@code option} (its long name without the dashes), or null if it has none.
   */
  private static @Nullable String key(OptionSpec option) {
    String name = option.longestName();
    if (!name.startsWith("--")
        || option.usageHelp()
        || option.versionHelp()
        || name.equals("--config")) {
      return null;
    }
    return name.substring(2);
  }

  private static Set<String> keys(CommandSpec spec) {
    Set<String> keys = new TreeSet<>();
    for (OptionSpec option : spec.options()) {
      String key = key(option);
      if (key != null) {
        keys.add(key);
      }
    }
    return keys;
  }

  private static @Nullable Path locate(List<String> args, Map<String, String> environment) {
    ConfigLocator locator = new ConfigLocator();
    try {
      new CommandLine(locator).parseArgs(args.toArray(String[]::new));
    } catch (CommandLine.ParameterException e) {
      // "--config" with no value: the real parse says so, naming the option
      return null;
    }
    if (locator.config != null) {
      return locator.config;
    }
    String named = environment.get(CONFIG_VARIABLE);
    return named == null || named.isBlank() ? null : Path.of(named.strip());
  }

  private static Properties read(Path path) {
    Properties properties = new Properties();
    try (Reader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      properties.load(in);
    } catch (NoSuchFileException e) {
      throw new BadConfig(path + ": no such file");
    } catch (IOException | IllegalArgumentException e) {
      throw new BadConfig(path + ": cannot read it: " + e.getMessage());
    }
    return properties;
  }

  /**
   * Finds {@code --config FILE} among a server's arguments with picocli itself, before the real
   * parse needs the file's values.
   */
  @CommandLine.Command(name = "config-locator")
  static final class ConfigLocator {
    @CommandLine.Option(names = "--config")
    @Nullable Path config;

    @CommandLine.Unmatched List<String> rest = new ArrayList<>();
  }

  /** The configuration file cannot be used: a usage error, said in one line. */
  public static final class BadConfig extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadConfig(String message) {
      super(message);
    }
  }
}
