package io.semafor.examples;

/** Where the examples find the server: the first argument, else 127.0.0.1:7400. */
final class Server {
  private Server() {}

  static String address(String[] args) {
    return args.length > 0 ? args[0] : "127.0.0.1:7400";
  }

  /** A name no earlier run used, so every run starts fresh. */
  static String fresh(String base) {
    return base + "-" + Long.toString(System.currentTimeMillis(), 36);
  }
}
