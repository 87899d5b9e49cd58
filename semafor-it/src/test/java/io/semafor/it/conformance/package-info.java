/**
 * The conformance kit's Java-client runner (conformance/README.md): cases are read by {@link
 * io.semafor.conformance.CaseParser} (module semafor-conformance, shared with the HTTP API's
 * runner), and {@link io.semafor.it.conformance.CaseExecutor} runs one with the Java client ({@link
 * io.semafor.it.conformance.JavaActor}), each actor behind its own {@link
 * io.semafor.it.conformance.ActorProxy} where the environment steps need one.
 */
@NullMarked
package io.semafor.it.conformance;

import org.jspecify.annotations.NullMarked;
