/**
 * The conformance kit's Java runner (conformance/README.md): {@link
 * io.semafor.it.conformance.CaseParser} reads a case file into a {@link
 * io.semafor.it.conformance.ConformanceCase} of {@link io.semafor.it.conformance.Step}s, refusing
 * anything it does not know, and {@link io.semafor.it.conformance.CaseExecutor} runs it with the
 * Java client ({@link io.semafor.it.conformance.JavaActor}), each actor behind its own {@link
 * io.semafor.it.conformance.ActorProxy} where the environment steps need one.
 */
@NullMarked
package io.semafor.it.conformance;

import org.jspecify.annotations.NullMarked;
