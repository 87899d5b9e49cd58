/**
 * The conformance kit's format in Java (conformance/README.md), shared by every Java-hosted runner
 * (the Java client's in semafor-it, the HTTP API's in semafor-http): {@link
 * io.semafor.conformance.CaseParser} reads a case file into a {@link
 * io.semafor.conformance.ConformanceCase} of {@link io.semafor.conformance.Step}s, refusing
 * anything it does not know; {@link io.semafor.conformance.Expectations} holds outcomes ({@link
 * io.semafor.conformance.Outcome}) to the case's expectations and keeps its variables. How an actor
 * performs an operation is each runner's own.
 */
@NullMarked
package io.semafor.conformance;

import org.jspecify.annotations.NullMarked;
