/**
 * The {@code semafor} command: picocli parsing, output (human or one JSON object) and exit codes.
 * Every operation is a call on the Java client; {@code semafor server} starts the server library.
 */
@NullMarked
package io.semafor.cli;

import org.jspecify.annotations.NullMarked;
