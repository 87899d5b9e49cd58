/**
 * Small programs that each solve one problem with the Java client. Run one against a server (for
 * example {@code ./semafor server} in another shell) with {@code java -cp
 * examples/target/examples.jar io.semafor.examples.CLASS [host:port]}.
 */
@NullMarked
package io.semafor.examples;

import org.jspecify.annotations.NullMarked;
