package io.semafor.cli;

import io.semafor.protocol.Frames;
import io.semafor.server.BuildInfo;
import picocli.CommandLine.IVersionProvider;

/**
 * {@code semafor --version}: the build (version and commit, from {@link BuildInfo}) and the
 * protocol it speaks.
 */
final class Version implements IVersionProvider {
  @Override
  public String[] getVersion() {
    return new String[] {
      "semafor " + BuildInfo.describe(), "wire protocol " + Frames.PROTOCOL_VERSION
    };
  }
}
