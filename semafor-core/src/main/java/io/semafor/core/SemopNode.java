package io.semafor.core;

/** A {@code semop} waiter's place in the queue of one of the semaphores it names. */
final class SemopNode extends Node {
  final SemopWaiter owner;
  final Semaphore semaphore;
  private final byte role;

  SemopNode(SemopWaiter owner, Semaphore semaphore, byte role) {
    this.owner = owner;
    this.semaphore = semaphore;
    this.role = role;
  }

  @Override
  Waiter waiter() {
    return owner;
  }

  @Override
  byte role() {
    return role;
  }
}
