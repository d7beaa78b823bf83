// Reads a unonet refusal the way any stock gRPC client can: from the standard trailer
// `grpc-status-details-bin`, a google.rpc.Status whose `details` hold the unonet.v1.ErrorDetail in an Any.
//
// Usage: node tests/node/read_refusal.js HOST:PORT
// It asks the host to list tables in TABLE_STATUS_UNSPECIFIED, which the host refuses, and prints one
// JSON line: {"code": <the call's status code>, "reason": ..., "metadata": {...}}.
"use strict";

const path = require("node:path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");
const protobuf = require("protobufjs");

const PROTOS = path.join(__dirname, "..", "..", "protos");
const ERROR_DETAIL_TYPE_URL = "type.googleapis.com/unonet.v1.ErrorDetail";
// google.rpc.Status exactly as googleapis defines it (google/rpc/status.proto).
const STATUS_PROTO = `syntax = "proto3";
package google.rpc;
import "google/protobuf/any.proto";
message Status { int32 code = 1; string message = 2; repeated google.protobuf.Any details = 3; }`;

/** The ErrorDetail of a refused call, or null when the call carries none. */
function errorDetail(error, root) {
  const [raw] = error.metadata ? error.metadata.get("grpc-status-details-bin") : [];
  if (!raw) return null;
  const status = root.lookupType("google.rpc.Status").decode(raw);
  const any = status.details.find((detail) => detail.type_url === ERROR_DETAIL_TYPE_URL);
  return any ? root.lookupType("unonet.v1.ErrorDetail").decode(any.value) : null;
}

function main(address) {
  const root = new protobuf.Root();
  root.loadSync(path.join(PROTOS, "unonet", "v1", "errors.proto"), { keepCase: true });
  root.loadSync("google/protobuf/any.proto", { keepCase: true }); // bundled with protobufjs
  protobuf.parse(STATUS_PROTO, root, { keepCase: true });

  const definition = protoLoader.loadSync("unonet/v1/lobby_service.proto", { includeDirs: [PROTOS] });
  const { LobbyService } = grpc.loadPackageDefinition(definition).unonet.v1;
  const lobby = new LobbyService(address, grpc.credentials.createInsecure());
  const deadline = new Date(Date.now() + 10_000);
  lobby.ListTables({ statuses: ["TABLE_STATUS_UNSPECIFIED"] }, { deadline }, (error) => {
    lobby.close();
    if (!error) {
      console.error("the host did not refuse the call");
      process.exit(1);
    }
    const detail = errorDetail(error, root);
    console.log(JSON.stringify({
      code: error.code,
      reason: detail ? detail.reason : null,
      metadata: detail ? detail.metadata : null,
    }));
  });
}

main(process.argv[2]);
