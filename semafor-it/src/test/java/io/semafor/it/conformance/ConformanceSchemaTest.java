package io.semafor.it.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.semafor.conformance.CaseParser;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every case file of the kit validates against conformance/schema.json (JSON Schema 2020-12), so a
 * runner in another language can trust the schema as the format's definition; and the schema is
 * strict enough to refuse what the Java parser refuses (an unknown argument, an unknown result
 * field).
 */
class ConformanceSchemaTest {
  private static final Path KIT =
      Path.of(System.getProperty("semafor.conformance.dir", "../conformance"));
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Schema schema() throws IOException {
    try (InputStream in = Files.newInputStream(KIT.resolve("schema.json"))) {
      return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(in);
    }
  }

  @Test
  void everyCaseFileValidatesAgainstTheSchema() throws IOException {
    Schema schema = schema();
    List<Path> files = CaseParser.caseFiles(KIT.resolve("cases"));
    assertThat(files).hasSizeGreaterThanOrEqualTo(15);
    for (Path file : files) {
      List<Error> errors = schema.validate(JSON.readTree(file.toFile()));
      assertThat(errors).as(file.getFileName().toString()).isEmpty();
    }
  }

  @Test
  void theSchemaRefusesAnUnknownArgumentAndAnUnknownResultField() throws IOException {
    Schema schema = schema();
    JsonNode kase =
        JSON.readTree(KIT.resolve("cases/partial-decrement-takes-what-there-is.json").toFile());
    ObjectNode misspeltArgument = kase.deepCopy();
    ((ObjectNode) misspeltArgument.get("steps").get(1).get("args")).put("amonut", 5);
    assertThat(schema.validate(misspeltArgument)).isNotEmpty();

    ObjectNode misspeltField = kase.deepCopy();
    ((ObjectNode) misspeltField.get("steps").get(1)).set("expect", JSON.readTree("{\"amout\": 3}"));
    assertThat(schema.validate(misspeltField)).isNotEmpty();
  }

  @Test
  void everyCaseFileParses() throws IOException {
    for (Path file : CaseParser.caseFiles(KIT.resolve("cases"))) {
      assertThat(CaseParser.parse(file).steps()).as(file.getFileName().toString()).isNotEmpty();
    }
  }
}
