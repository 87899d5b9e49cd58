package io.semafor.server.session;

import io.semafor.ErrorCode;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.server.security.Principal;
import java.util.ArrayList;
import java.util.List;

/**
 * The effects a {@link ServerSession} is producing for the input being handled, and what they have
 * done to the connection so far: whether it is closed, and whether it is read from. Not
 * thread-safe: part of a {@link ServerSession}.
 */
final class Effects {
  private final String address;
  private List<ServerEffect> list = new ArrayList<>();
  private boolean closed;
  private boolean reading = true;

  /** Effects for a connection from {@code address} (as the audit log writes it). */
  Effects(String address) {
    this.address = address;
  }

  void add(ServerEffect effect) {
    list.add(effect);
  }

  void send(ServerFrame frame) {
    list.add(new ServerEffect.Send(frame));
  }

  /** Says why in a {@code Fatal}, then closes; nothing if closed already. */
  void fatal(ErrorCode code, String message) {
    close(SessionFrames.fatal(code, message));
  }

  /** Sends {@code last}, then closes; nothing if closed already. */
  void close(ServerFrame last) {
    if (closed) {
      return;
    }
    closed = true;
    list.add(new ServerEffect.SendAndClose(last));
  }

  /** The connection is gone: nothing more is sent. */
  void gone() {
    closed = true;
  }

  boolean closed() {
    return closed;
  }

  void audit(String action, Principal who, String outcome) {
    list.add(new ServerEffect.Audit(action, who, address, outcome));
  }

  /** Reads from the connection, or stops: said only when it changes, and never once closed. */
  void reading(boolean on) {
    if (reading != on && !closed) {
      reading = on;
      list.add(new ServerEffect.AutoRead(on));
    }
  }

  /** The effects produced since the last call, in order. */
  List<ServerEffect> take() {
    if (list.isEmpty()) {
      return List.of();
    }
    List<ServerEffect> taken = list;
    list = new ArrayList<>(4);
    return taken;
  }
}
