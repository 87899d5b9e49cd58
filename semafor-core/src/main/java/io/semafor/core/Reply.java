package io.semafor.core;

/**
 * The answer to one request: whose it is, the revision of the command that produced it (for a grant
 * that came later, the revision of the increment, release or expiry that caused it), and the
 * result.
 */
public record Reply(long sessionId, long requestId, long revision, Result result) {}
