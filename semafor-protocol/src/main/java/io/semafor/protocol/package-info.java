/**
 * Semafor's wire contract: length-prefixed protobuf frames ({@link io.semafor.protocol.Frames}) of
 * the messages generated from {@code semafor.proto} into {@code io.semafor.protocol.v1}.
 */
@NullMarked
package io.semafor.protocol;

import org.jspecify.annotations.NullMarked;
