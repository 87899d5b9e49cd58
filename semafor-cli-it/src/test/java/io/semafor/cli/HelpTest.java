package io.semafor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.cli.CliProcess.Finished;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Every command's help, as {@code semafor ... --help} prints it, renders whole and names only
 * options that exist (issue 31). picocli prints each element of a description on lines of its own
 * and wraps it at 80 columns, and a group's command list shows the first element only: an element
 * that ends mid-sentence is a summary cut short, or a stray line break in the middle of a sentence.
 */
class HelpTest {
  /** A mention of an option, {@code --name}; {@code --} alone (run's separator) is none. */
  private static final Pattern OPTION = Pattern.compile("(?<![\\w-])--[a-z][a-z0-9-]*");

  /** A span of text between backticks: a command line, {@code `semafor server --join`}. */
  private static final Pattern QUOTED = Pattern.compile("`([^`]*)`");

  /** Every command in the tree, {@code semafor} and its groups' subcommands included. */
  private static List<CommandLine> everyCommand() {
    List<CommandLine> all = new ArrayList<>();
    collect(SemaforCommand.commandLine(""), all);
    return all;
  }

  private static void collect(CommandLine line, List<CommandLine> into) {
    into.add(line);
    line.getSubcommands().values().stream().distinct().forEach(sub -> collect(sub, into));
  }

  /**
   * Whether {@code text} ends a sentence: a full stop (or ? !), maybe inside a bracket or quote.
   */
  private static boolean endsASentence(String text) {
    String t = text.strip();
    while (!t.isEmpty() && ")\"'`".indexOf(t.charAt(t.length() - 1)) >= 0) {
      t = t.substring(0, t.length() - 1);
    }
    return !t.isEmpty() && ".?!".indexOf(t.charAt(t.length() - 1)) >= 0;
  }

  /** Each piece of text the command's help prints, labelled with where it comes from. */
  private static List<String[]> texts(CommandLine line) {
    CommandSpec spec = line.getCommandSpec();
    String name = spec.qualifiedName();
    List<String[]> texts = new ArrayList<>();
    for (String s : spec.usageMessage().header()) {
      texts.add(new String[] {name + " header", s});
    }
    for (String s : spec.usageMessage().description()) {
      texts.add(new String[] {name + " description", s});
    }
    for (String s : spec.usageMessage().footer()) {
      texts.add(new String[] {name + " footer", s});
    }
    List<ArgSpec> args = new ArrayList<>(spec.options());
    args.addAll(spec.positionalParameters());
    for (ArgSpec arg : args) {
      for (String s : arg.description()) {
        texts.add(new String[] {name + " " + arg.paramLabel() + " " + arg, s});
      }
    }
    return texts;
  }

  @Test
  void everyLineOfEveryCommandsHelpIsWholeSentences() {
    List<String> cut = new ArrayList<>();
    for (CommandLine line : everyCommand()) {
      for (String[] text : texts(line)) {
        if (!text[1].isBlank() && !endsASentence(text[1])) {
          cut.add(text[0] + ": \"" + text[1] + "\"");
        }
      }
    }
    assertThat(cut).as("help text that stops mid-sentence").isEmpty();
  }

  @Test
  void everyCommandListShowsEachSubcommandsWholeFirstSentence() {
    List<String> cut = new ArrayList<>();
    for (CommandLine line : everyCommand()) {
      String usage = line.getUsageMessage(CommandLine.Help.Ansi.OFF);
      int list = usage.indexOf("\nCommands:\n");
      if (list < 0) {
        continue;
      }
      // an entry is its first line and the more indented ones that continue it
      List<String> entries = new ArrayList<>();
      for (String row : usage.substring(list + "\nCommands:\n".length()).split("\n", -1)) {
        if (row.isBlank()) {
          break;
        }
        if (row.startsWith("   ") && !entries.isEmpty()) {
          entries.set(entries.size() - 1, entries.get(entries.size() - 1) + " " + row.strip());
        } else {
          entries.add(row.strip());
        }
      }
      assertThat(entries)
          .hasSameSizeAs(line.getSubcommands().values().stream().distinct().toList());
      for (String entry : entries) {
        if (!endsASentence(entry)) {
          cut.add(line.getCommandSpec().qualifiedName() + ": " + entry);
        }
      }
    }
    assertThat(cut).as("command list entries cut mid-sentence").isEmpty();
  }

  @Test
  void everyOptionAHelpTextNamesExistsOnTheCommandItNames() {
    CommandLine root = SemaforCommand.commandLine("");
    List<String> missing = new ArrayList<>();
    for (CommandLine line : everyCommand()) {
      for (String[] text : texts(line)) {
        String rest = text[1];
        // a quoted command line names its command: `semafor server --join`, `release --lease`
        Matcher quoted = QUOTED.matcher(text[1]);
        while (quoted.find()) {
          CommandLine named = named(root, quoted.group(1));
          if (named != null) {
            checkMentions(named, quoted.group(1), text[0], missing);
            rest = rest.replace(quoted.group(0), " ");
          }
        }
        checkMentions(line, rest, text[0], missing);
      }
    }
    assertThat(missing).as("options named in help that the command does not have").isEmpty();
  }

  @Test
  void semaforHelpAsAUserRunsItListsEveryCommandWithAWholeSentence() throws Exception {
    Finished help = CliProcess.runRaw("--help");
    assertThat(help.status()).isZero();
    assertThat(help.out()).doesNotContain("sorted by name: value,\n").contains("Commands:");
    String listed = help.out().substring(help.out().indexOf("Commands:"));
    assertThat(listed.lines().filter(l -> l.startsWith("  ") && !l.startsWith("   ")))
        .hasSize(SemaforCommand.SUBCOMMANDS.size());
    assertThat(listed).contains("  list       Print the semaphores as a table, sorted by name.");
  }

  /** The command a quoted command line names ({@code semafor session end ID}), or null. */
  private static @Nullable CommandLine named(CommandLine root, String commandLine) {
    String[] words = commandLine.strip().split("\\s+", -1);
    int i = words.length > 0 && words[0].equals("semafor") ? 1 : 0;
    CommandLine at = root;
    boolean any = false;
    for (; i < words.length; i++) {
      CommandLine sub = at.getSubcommands().get(words[i]);
      if (sub == null) {
        break;
      }
      at = sub;
      any = true;
    }
    return any ? at : null;
  }

  private static void checkMentions(
      CommandLine command, String text, String where, List<String> missing) {
    Matcher m = OPTION.matcher(text);
    while (m.find()) {
      if (!command.getCommandSpec().optionsMap().containsKey(m.group())) {
        missing.add(
            where
                + " names "
                + m.group()
                + ", which `"
                + command.getCommandSpec().qualifiedName()
                + "` does not have");
      }
    }
  }
}
