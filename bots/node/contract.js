// Loading the unonet.v1 protocol at run time, and reading refusals, for a Node bot.
//
// Everything here comes from protos/unonet/v1/*.proto and docs/protocol.md alone: the service
// clients (via @grpc/proto-loader), the ErrorDetail decoder for both trailers ("Errors" in the
// guide), the list of reasons errors.proto documents, and the exact bytes of a shuffle commitment
// ("Contributing to the shuffle: the exact bytes").
"use strict";

const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");
const protobuf = require("protobufjs");

const PROTO_ROOT = path.resolve(__dirname, "..", "..", "protos");
const PROTO_FILES = [
  "lobby_service", "play_service", "watch_service", "time_service", "chat_service",
].map((name) => `unonet/v1/${name}.proto`);

// Plain JS objects: snake_case names, enums by name, 64-bit numbers as strings, and fields at
// their zero value left undefined (defaults: false) so that "is it filled?" can be checked.
const LOADER_OPTIONS = {
  keepCase: true, longs: String, enums: String, defaults: false, oneofs: true,
  includeDirs: [PROTO_ROOT],
};

/** Returns {lobby, play, watch, time, chat} clients for the host at `address` (host:port). */
function connect(address) {
  const definition = protoLoader.loadSync(PROTO_FILES, LOADER_OPTIONS);
  const v1 = grpc.loadPackageDefinition(definition).unonet.v1;
  const credentials = grpc.credentials.createInsecure();
  return {
    lobby: new v1.LobbyService(address, credentials),
    play: new v1.PlayService(address, credentials),
    watch: new v1.WatchService(address, credentials),
    time: new v1.TimeService(address, credentials),
    chat: new v1.ChatService(address, credentials),
  };
}

/** Calls a unary RPC and resolves {response} or {error}; never rejects. */
function call(client, method, request, deadlineMs = 30000) {
  return new Promise((resolve) => {
    const deadline = new Date(Date.now() + deadlineMs);
    client[method](request, { deadline }, (error, response) => {
      resolve(error ? { error } : { response });
    });
  });
}

let errorRoot = null;

/** The protobufjs types that decode the two refusal trailers (docs/protocol.md, "Errors"). */
function errorTypes() {
  if (errorRoot === null) {
    errorRoot = new protobuf.Root();
    errorRoot.loadSync(path.join(PROTO_ROOT, "unonet/v1/errors.proto"), { keepCase: true });
    errorRoot.loadSync("google/protobuf/any.proto", { keepCase: true });
    protobuf.parse(`syntax = "proto3"; package google.rpc; import "google/protobuf/any.proto";
      message Status { int32 code = 1; string message = 2; repeated google.protobuf.Any details = 3; }`,
    errorRoot, { keepCase: true });
  }
  return {
    status: errorRoot.lookupType("google.rpc.Status"),
    detail: errorRoot.lookupType("unonet.v1.ErrorDetail"),
  };
}

const DETAIL_TYPE_URL = "type.googleapis.com/unonet.v1.ErrorDetail";

/**
 * Reads a refusal as the guide says it travels: ErrorDetail in `unonet-error-bin` and, inside a
 * google.rpc.Status, in `grpc-status-details-bin`. Returns the code, message, both decodings and
 * a list of problems (missing trailer, mismatch) for the audit to report.
 */
function readRefusal(error) {
  const types = errorTypes();
  const problems = [];
  const metadata = error.metadata ? error.metadata : new grpc.Metadata();
  const [raw] = metadata.get("unonet-error-bin");
  const [rawStatus] = metadata.get("grpc-status-details-bin");
  let detail = null;
  let statusDetail = null;
  if (raw === undefined) problems.push("no unonet-error-bin trailer");
  else detail = types.detail.toObject(types.detail.decode(raw));
  if (rawStatus === undefined) {
    problems.push("no grpc-status-details-bin trailer");
  } else {
    const status = types.status.decode(rawStatus);
    if (status.code !== error.code) problems.push(`Status.code ${status.code} != call code ${error.code}`);
    if (status.message !== error.details) problems.push("Status.message differs from the call's message");
    const any = status.details.find((d) => d.type_url === DETAIL_TYPE_URL);
    if (any === undefined) problems.push(`no Any of ${DETAIL_TYPE_URL} in Status.details`);
    else statusDetail = types.detail.toObject(types.detail.decode(any.value));
  }
  if (detail && statusDetail && JSON.stringify(detail) !== JSON.stringify(statusDetail)) {
    problems.push("the two trailers carry different ErrorDetails");
  }
  const found = detail || statusDetail || {};
  if (found.reason && !documentedReasons().has(found.reason)) {
    problems.push(`reason ${found.reason} is not documented in errors.proto`);
  }
  return {
    code: error.code, codeName: grpc.status[error.code], message: error.details,
    reason: found.reason || "", metadata: found.metadata || {}, problems,
  };
}

let reasons = null;

/** Every reason named in errors.proto's ErrorDetail comment (UPPER_SNAKE words of 4+ letters). */
function documentedReasons() {
  if (reasons === null) {
    const text = fs.readFileSync(path.join(PROTO_ROOT, "unonet/v1/errors.proto"), "utf8");
    reasons = new Set(text.match(/\b[A-Z][A-Z_]{3,}\b/g));
  }
  return reasons;
}

/** A length-prefixed field of the entropy preimage: 4-byte big-endian length, then the bytes. */
function field(bytes) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

function uint64(value) {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value));
  return bytes;
}

/** SHA-256 of the seat-entropy preimage, exactly as docs/protocol.md specifies it. */
function entropyCommitment(tableId, roundNumber, seat, value) {
  const preimage = Buffer.concat([
    field(Buffer.from("unonet/v1/seat-entropy", "ascii")),
    field(Buffer.from(tableId, "utf8")),
    field(uint64(roundNumber)),
    field(uint64(seat)),
    field(value),
  ]);
  return crypto.createHash("sha256").update(preimage).digest();
}

/** A Timestamp message for `ms` milliseconds since the epoch. */
function timestamp(ms) {
  return { seconds: String(Math.floor(ms / 1000)), nanos: Math.round((ms % 1000) * 1e6) };
}

/** Milliseconds since the epoch of a Timestamp message (undefined stays undefined). */
function millis(ts) {
  if (!ts) return undefined;
  return Number(ts.seconds || 0) * 1000 + (ts.nanos || 0) / 1e6;
}

/** Milliseconds of a Duration message. */
function durationMs(d) {
  if (!d) return undefined;
  return Number(d.seconds || 0) * 1000 + (d.nanos || 0) / 1e6;
}

function duration(ms) {
  return { seconds: String(Math.floor(ms / 1000)), nanos: Math.round((ms % 1000) * 1e6) };
}

module.exports = {
  connect, call, readRefusal, documentedReasons, entropyCommitment, timestamp, millis,
  durationMs, duration, grpc,
};
