/**
 * The server's command-line options, defined once for {@code java -jar semafor-server.jar} and
 * {@code semafor server}, and where their values come from: the command line, {@code SEMAFOR_*}
 * environment variables, a {@code --config} file, the defaults (in that order).
 */
@NullMarked
package io.semafor.server.options;

import org.jspecify.annotations.NullMarked;
