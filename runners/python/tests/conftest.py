"""The protobuf subject's descriptor set: serbench writes it into the
runner's cache and names it in $SERBENCH_PROTOBUF_DESCRIPTORS; the tests use
the copy Go's test keeps current (go test ./runner/nestedpb -run TestDescriptors
-update). Set here, before any test module imports the subjects, so the
runner processes the end-to-end tests start inherit it too."""

import os

from serbench_runner.subjects import protobuf_

os.environ.setdefault(protobuf_.ENV, os.path.join(os.path.dirname(os.path.abspath(__file__)), "nested_pb.binpb"))
