/**
 * Who may do what: principals authenticated by bearer tokens or client certificates, permissions
 * per name prefix from the auth file, and the audit log (docs/security.md).
 */
@NullMarked
package io.semafor.server.security;

import org.jspecify.annotations.NullMarked;
