"""Lists a HanniBall server's services and describes one method through server reflection, with
Python's grpcio-reflection client (which speaks the v1alpha protocol only).

    python reflect.py --server http://127.0.0.1:50051

Exits non-zero if reflection does not answer or misses a HanniBall service.
"""

import argparse
import sys

import grpc
from google.protobuf.descriptor_pool import DescriptorPool
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

EXPECTED = {
    "hanniball.accounts.v1.Accounts",
    "hanniball.arbiter.v1.Arbiter",
    "hanniball.rating.v1.Rating",
    "hanniball.scheduler.v1.Scheduler",
    "grpc.health.v1.Health",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--server", default="http://127.0.0.1:50051")
    parser.add_argument("--ca-cert", help="for https://: the CA certificate to trust (PEM)")
    args = parser.parse_args()
    if args.server.startswith("https://"):
        roots = open(args.ca_cert, "rb").read() if args.ca_cert else None
        channel = grpc.secure_channel(args.server.removeprefix("https://"),
                                      grpc.ssl_channel_credentials(root_certificates=roots))
    else:
        channel = grpc.insecure_channel(args.server.removeprefix("http://"))
    with channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        services = set(database.get_services())
        print("services:", ", ".join(sorted(services)))
        missing = EXPECTED - services
        if missing:
            print("reflection misses:", ", ".join(sorted(missing)), file=sys.stderr)
            return 1
        pool = DescriptorPool(database)
        method = pool.FindMethodByName("hanniball.arbiter.v1.Arbiter.SubmitTurn")
        fields = [f.name for f in method.input_type.fields]
        print(f"SubmitTurn({method.input_type.full_name}: {', '.join(fields)})")
        if "turn" not in fields:
            print("SubmitTurnRequest has no field 'turn'", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
