package io.semafor.cli;

import io.semafor.protocol.Frames;
import picocli.CommandLine.IVersionProvider;

/** {@code semafor --version}: the build and the protocol it speaks. */
final class Version implements IVersionProvider {
  @Override
  public String[] getVersion() {
    String build = Version.class.getPackage().getImplementationVersion();
    return new String[] {
      "semafor " + (build == null ? "(development build)" : build),
      "wire protocol " + Frames.PROTOCOL_VERSION
    };
  }
}
