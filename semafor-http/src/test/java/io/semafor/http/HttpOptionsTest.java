package io.semafor.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

class HttpOptionsTest {
  @Command(name = "server")
  static final class Server {
    @Mixin HttpOptions http = new HttpOptions();
  }

  private static HttpOptions parse(String... args) {
    Server server = new Server();
    new CommandLine(server).parseArgs(args);
    return server.http;
  }

  @Test
  void withoutHttpPortTheApiListensOnTheClientPortPlusTwo() {
    assertThat(parse().port(7400)).isEqualTo(7402);
    assertThat(parse().port(17410)).isEqualTo(17412);
  }

  @Test
  void withoutHttpPortBesideClientPortZeroTheApiTakesAnyFreePort() {
    assertThat(parse().port(0)).isZero();
  }

  @Test
  void aGivenHttpPortWinsWhateverTheClientPort() {
    assertThat(parse("--http-port", "9000").port(7400)).isEqualTo(9000);
    assertThat(parse("--http-port", "-1").port(7400)).isEqualTo(-1);
    assertThat(parse("--http-port", "0").port(7400)).isZero();
  }

  @Test
  void aDerivedPortPast65535IsRefusedNamingTheOption() {
    assertThatThrownBy(() -> parse().port(65_534))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "httpPort past 65535: the client port 65534 + 2; give --http-port, or -1 for no"
                + " HTTP API");
  }

  @Test
  void anHttpPortOutOfRangeIsRefusedNamingTheOption() {
    assertThatThrownBy(() -> parse("--http-port", "70000").config())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("httpPort outside -1..65535: 70000");
  }
}
