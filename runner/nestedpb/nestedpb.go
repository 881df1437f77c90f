// Package nestedpb hands the runners for other languages the protobuf
// messages of the nested datasets without protoc: the descriptors Go
// compiled from dataset/nested/{tpch,media,userevents}/pb/*.proto, as one
// serialized FileDescriptorSet that a runner's protobuf subject turns into
// message types (Python's descriptor pool and message factory, Rust's
// prost-reflect), as a protoc-generated module does from its embedded
// descriptor.
package nestedpb

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	mediapb "github.com/serbench/serbench/dataset/nested/media/pb"
	tpchpb "github.com/serbench/serbench/dataset/nested/tpch/pb"
	uepb "github.com/serbench/serbench/dataset/nested/userevents/pb"
)

// Env names the environment variable that tells a runner where the
// FileDescriptorSet is.
const Env = "SERBENCH_PROTOBUF_DESCRIPTORS"

// File is the FileDescriptorSet's name in a runner's cache directory.
const File = "nested-pb.binpb"

// Descriptors is the serialized FileDescriptorSet of the nested datasets'
// .proto files (tpch.proto, media.proto, userevents.proto, as protoc
// compiled them for the Go code), deterministically marshalled.
func Descriptors() ([]byte, error) {
	set := &descriptorpb.FileDescriptorSet{}
	for _, f := range []protoreflect.FileDescriptor{tpchpb.File_tpch_proto, mediapb.File_media_proto, uepb.File_userevents_proto} {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(f))
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(set)
	if err != nil {
		return nil, fmt.Errorf("the nested .proto descriptors: %w", err)
	}
	return b, nil
}

// Write writes the descriptors to dir/File unless the file already holds
// them, and returns its path and the Env setting that names it.
func Write(dir string) (path, env string, err error) {
	b, err := Descriptors()
	if err != nil {
		return "", "", err
	}
	path = filepath.Join(dir, File)
	if old, err := os.ReadFile(path); err != nil || !bytes.Equal(old, b) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return "", "", fmt.Errorf("the nested .proto descriptors: %w", err)
		}
	}
	return path, Env + "=" + path, nil
}
