package io.semafor.server.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A request's JSON object, read field by field so that every mistake names its field: a body that
 * is not JSON, a field of the wrong type, a required field missing, a field the route does not know
 * ({@link #done()}). Each is {@link ApiException} 400 {@code INVALID_ARGUMENT}, thrown before the
 * route changes anything. Not thread-safe (one request's).
 */
public final class JsonBody {
  /** The mapper every JSON body and answer goes through: duplicate keys are refused. */
  public static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .build();

  private final ObjectNode node;
  private final String prefix;
  private final Set<String> read = new LinkedHashSet<>();

  private JsonBody(ObjectNode node, String prefix) {
    this.node = node;
    this.prefix = prefix;
  }

  /**
   * Parses a body; an empty body is an empty object.
   *
   * @throws ApiException naming {@code body} if it is not one JSON object
   */
  public static JsonBody parse(byte[] bytes) {
    if (bytes.length == 0 || new String(bytes, java.nio.charset.StandardCharsets.UTF_8).isBlank()) {
      return new JsonBody(MAPPER.createObjectNode(), "");
    }
    JsonNode tree;
    try {
      tree = MAPPER.readTree(bytes);
    } catch (JsonProcessingException e) {
      throw ApiException.invalid(
          "body", "not valid JSON (" + e.getOriginalMessage() + "); send one JSON object");
    } catch (IOException e) {
      throw ApiException.invalid("body", "unreadable: " + e.getMessage());
    }
    if (tree == null || tree.isMissingNode()) {
      return new JsonBody(MAPPER.createObjectNode(), "");
    }
    if (!(tree instanceof ObjectNode object)) {
      throw ApiException.invalid("body", "must be a JSON object, was " + kind(tree));
    }
    return new JsonBody(object, "");
  }

  /** A required integer field. */
  public long requireLong(String field) {
    Long value = optionalLong(field);
    if (value == null) {
      throw missing(field, "an integer");
    }
    return value;
  }

  /** An integer field, or {@code fallback} if absent. */
  public long longOr(String field, long fallback) {
    Long value = optionalLong(field);
    return value == null ? fallback : value;
  }

  private @Nullable Long optionalLong(String field) {
    JsonNode v = field(field);
    if (v == null) {
      return null;
    }
    if (!v.isIntegralNumber() || !v.canConvertToLong()) {
      throw wrongType(field, "an integer from -2^63 to 2^63-1", v);
    }
    return v.longValue();
  }

  /** A required string field. */
  public String requireString(String field) {
    String value = stringOr(field, null);
    if (value == null) {
      throw missing(field, "a string");
    }
    return value;
  }

  /** A string field, or {@code fallback} if absent. */
  public @Nullable String stringOr(String field, @Nullable String fallback) {
    JsonNode v = field(field);
    if (v == null) {
      return fallback;
    }
    if (!v.isTextual()) {
      throw wrongType(field, "a string", v);
    }
    return v.textValue();
  }

  /** A boolean field, or {@code fallback} if absent. */
  public boolean booleanOr(String field, boolean fallback) {
    JsonNode v = field(field);
    if (v == null) {
      return fallback;
    }
    if (!v.isBoolean()) {
      throw wrongType(field, "true or false", v);
    }
    return v.booleanValue();
  }

  /** A required array of objects, each read as a body of its own named {@code field[i]}. */
  public List<JsonBody> requireObjects(String field) {
    JsonNode v = field(field);
    if (v == null) {
      throw missing(field, "an array of objects");
    }
    if (!v.isArray()) {
      throw wrongType(field, "an array of objects", v);
    }
    List<JsonBody> out = new ArrayList<>();
    for (int i = 0; i < v.size(); i++) {
      JsonNode item = v.get(i);
      String name = prefix + field + "[" + i + "]";
      if (!(item instanceof ObjectNode object)) {
        throw ApiException.invalid(name, "must be an object, was " + kind(item));
      }
      out.add(new JsonBody(object, name + "."));
    }
    return out;
  }

  /**
   * Refuses fields no accessor asked for.
   *
   * @throws ApiException naming the first unknown field
   */
  public void done() {
    Iterator<String> names = node.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      if (!read.contains(name)) {
        throw ApiException.invalid(
            prefix + name, "unknown field; this one takes " + String.join(", ", read));
      }
    }
  }

  private @Nullable JsonNode field(String name) {
    read.add(name);
    JsonNode v = node.get(name);
    return v == null || v.isNull() ? null : v;
  }

  private ApiException missing(String field, String what) {
    return ApiException.invalid(prefix + field, "required, " + what);
  }

  private ApiException wrongType(String field, String what, JsonNode v) {
    return ApiException.invalid(prefix + field, "must be " + what + ", was " + kind(v) + " " + v);
  }

  private static String kind(JsonNode v) {
    return switch (v.getNodeType()) {
      case ARRAY -> "an array";
      case OBJECT -> "an object";
      case STRING -> "a string";
      case NUMBER -> v.isIntegralNumber() ? "an integer out of range" : "a fraction";
      case BOOLEAN -> "a boolean";
      case NULL -> "null";
      default -> String.valueOf(v.getNodeType()).toLowerCase(java.util.Locale.ROOT);
    };
  }
}
