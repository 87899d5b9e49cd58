package io.semafor.it.faults;

import static io.semafor.it.faults.Op.Outcome.FAILED;
import static io.semafor.it.faults.Op.Outcome.OK;
import static io.semafor.it.faults.Op.Outcome.UNKNOWN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A history survives the disk, several files and a process killed mid-line. */
class OpLogTest {
  private static final Op ACQUIRED = Op.acquire(1, "s", 2, 100, 200, OK, 7, 9);
  private static final Op RELEASED = Op.release(1, "s", 2, 300, 400, UNKNOWN);
  private static final Op READ = Op.read(2, "ünï", 150, 250, OK, 3);
  private static final Op REFUSED = Op.increment(2, "c", 1, 350, 360, FAILED);

  @Test
  void opsWrittenAreReadBackAsTheyWere(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("1.jsonl");
    try (OpLog.Writer writer = OpLog.Writer.open(file)) {
      writer.append(ACQUIRED);
      writer.append(RELEASED);
    }
    assertThat(OpLog.read(file)).containsExactly(ACQUIRED, RELEASED);
  }

  @Test
  void eachOpIsOneLineOfJson(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("1.jsonl");
    OpLog.append(file, ACQUIRED);
    assertThat(Files.readString(file))
        .isEqualTo(
            "{\"client\":1,\"kind\":\"acquire\",\"semaphore\":\"s\",\"amount\":2,\"invoked\":100,"
                + "\"completed\":200,\"outcome\":\"OK\",\"value\":-1,\"token\":7,\"sequence\":9}\n");
  }

  @Test
  void filesAreMergedInInvocationOrder(@TempDir Path dir) throws IOException {
    Path one = dir.resolve("1.jsonl");
    Path two = dir.resolve("2.jsonl");
    OpLog.append(one, ACQUIRED);
    OpLog.append(one, RELEASED);
    OpLog.append(two, READ);
    OpLog.append(two, REFUSED);
    assertThat(OpLog.read(one, two)).containsExactly(ACQUIRED, READ, RELEASED, REFUSED);
  }

  @Test
  void aLastLineCutShortByAKillIsDropped(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("1.jsonl");
    OpLog.append(file, ACQUIRED);
    byte[] line = OpLog.toLine(RELEASED);
    Files.write(file, Arrays.copyOf(line, line.length / 2), StandardOpenOption.APPEND);
    assertThat(OpLog.read(file)).containsExactly(ACQUIRED);
  }

  @Test
  void aLastLineCutInTheMiddleOfACharacterIsDropped(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("1.jsonl");
    OpLog.append(file, ACQUIRED);
    byte[] line = OpLog.toLine(READ);
    int inTheName = new String(line, StandardCharsets.UTF_8).indexOf('ü') + 1;
    Files.write(file, Arrays.copyOf(line, inTheName), StandardOpenOption.APPEND);
    assertThat(OpLog.read(file)).containsExactly(ACQUIRED);
  }

  @Test
  void aCompleteLastLineWithoutItsNewlineIsKept(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("1.jsonl");
    byte[] line = OpLog.toLine(ACQUIRED);
    Files.write(file, Arrays.copyOf(line, line.length - 1));
    assertThat(OpLog.read(file)).containsExactly(ACQUIRED);
  }

  @Test
  void aBrokenLineBeforeTheLastIsAnError(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("1.jsonl");
    Files.writeString(file, "{\"client\":1,\"ki\n");
    OpLog.append(file, ACQUIRED);
    assertThatThrownBy(() -> OpLog.read(file))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("1.jsonl:1: not an op");
  }

  @Test
  void aLineMissingAFieldIsAnError(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("1.jsonl");
    Files.writeString(file, "{\"client\":1,\"kind\":\"read\",\"semaphore\":\"s\"}\n");
    assertThatThrownBy(() -> OpLog.read(file)).isInstanceOf(IOException.class);
  }

  @Test
  void aWriterReopeningAFileCutShortStartsAFreshLine(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("1.jsonl");
    OpLog.append(file, ACQUIRED);
    byte[] line = OpLog.toLine(RELEASED);
    Files.write(file, Arrays.copyOf(line, 10), StandardOpenOption.APPEND);
    try (OpLog.Writer writer = OpLog.Writer.open(file)) {
      writer.append(READ);
    }
    assertThat(OpLog.read(file)).containsExactly(ACQUIRED, READ);
  }

  @Test
  void anInvocationRecordIsReplacedByItsCompletion(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("1.jsonl");
    try (OpLog.Writer writer = OpLog.Writer.open(file)) {
      writer.append(Op.invocation(1, Op.ACQUIRE, "s", 2, 100));
      writer.append(ACQUIRED);
    }
    assertThat(OpLog.read(file)).containsExactly(ACQUIRED);
  }

  @Test
  void anInvocationRecordWithNoCompletionIsAnUnknownOp(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("1.jsonl");
    Op inFlight = Op.invocation(1, Op.INCREMENT, "c", 1, 500);
    try (OpLog.Writer writer = OpLog.Writer.open(file)) {
      writer.append(Op.invocation(1, Op.ACQUIRE, "s", 2, 100));
      writer.append(ACQUIRED);
      writer.append(inFlight);
    }
    List<Op> ops = OpLog.read(file);
    assertThat(ops).containsExactly(ACQUIRED, inFlight);
    assertThat(ops.get(1).outcome()).isEqualTo(UNKNOWN);
  }

  @Test
  void anOpNoClientCouldHaveSeenIsRefused() {
    assertThatThrownBy(() -> Op.read(1, "s", 10, 5, OK, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Op(1, "decrement", "s", 1, 0, 1, OK, -1, -1, -1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
