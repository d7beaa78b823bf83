"""The trailing-metadata keys a refusal travels under, defined once beside the protocol they belong to.

Hand-written (the `*_pb2` modules beside it are generated): the host (`unonet.host.errors`) writes
these keys and the client SDK (`unonet.client.errors`) reads them, and both may import `unonet.v1`.
`errors.proto` and docs/protocol.md ("Errors") describe what each key carries.
"""

from __future__ import annotations

__all__ = ["ERROR_DETAIL_KEY", "STATUS_DETAILS_KEY"]

ERROR_DETAIL_KEY = "unonet-error-bin"
"""The key of a refusal's `unonet.v1.ErrorDetail`, serialized with the ordinary protobuf encoding."""

STATUS_DETAILS_KEY = "grpc-status-details-bin"
"""gRPC's own key for a serialized `google.rpc.Status` (the ErrorDetail packed in its `details`)."""
