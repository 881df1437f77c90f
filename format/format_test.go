package format

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestLineReader(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr error
	}{
		{"", nil, nil},
		{"a\nb\n", []string{"a", "b"}, nil},
		{"a\n\n", []string{"a", ""}, nil},
		{"a\nb", []string{"a"}, io.ErrUnexpectedEOF},
		{strings.Repeat("x", 100_000) + "\n", []string{strings.Repeat("x", 100_000)}, nil},
	}
	for _, tt := range tests {
		lr := NewLineReader(bufio.NewReaderSize(strings.NewReader(tt.in), 16))
		var got []string
		var err error
		for {
			var b []byte
			if b, err = lr.Next(); err != nil {
				break
			}
			got = append(got, string(b))
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%.20q: lines %q, want %q", tt.in, got, tt.want)
		}
		if tt.wantErr == nil && err != io.EOF || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
			t.Errorf("%.20q: err = %v, want %v", tt.in, err, tt.wantErr)
		}
	}
}

func TestFrames(t *testing.T) {
	var stream []byte
	bodies := [][]byte{{}, []byte("x"), bytes.Repeat([]byte("y"), 300)}
	for _, b := range bodies {
		stream = AppendFrame(stream, b)
	}
	r := bufio.NewReader(bytes.NewReader(stream))
	var buf []byte
	for i, want := range bodies {
		var err error
		if buf, err = ReadFrame(r, buf, MaxFrame); err != nil || !bytes.Equal(buf, want) {
			t.Fatalf("frame %d: %q, %v", i, buf, err)
		}
	}
	if _, err := ReadFrame(r, buf, MaxFrame); err != io.EOF {
		t.Fatalf("end: err = %v, want io.EOF", err)
	}
	for cut := 1; cut < len(stream); cut += 37 {
		r := bufio.NewReader(bytes.NewReader(stream[:len(stream)-cut]))
		var err error
		for err == nil {
			_, err = ReadFrame(r, nil, MaxFrame)
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("cut %d: err = %v, want ErrUnexpectedEOF", cut, err)
		}
	}
	big := AppendFrame(nil, make([]byte, 100))
	if _, err := ReadFrame(bufio.NewReader(bytes.NewReader(big)), nil, 10); err == nil {
		t.Fatal("frame over the limit accepted")
	}
}

func TestUnexpected(t *testing.T) {
	if err := Unexpected("x", io.EOF); !errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		t.Fatalf("Unexpected(EOF) = %v", err)
	}
	if err := Unexpected("x", errors.New("other")); errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("Unexpected(other) = %v", err)
	}
}

func TestCatchPanic(t *testing.T) {
	f := func() (err error) {
		defer CatchPanic("t", &err)
		var s []int
		_ = s[3]
		return nil
	}
	if err := f(); err == nil || !strings.Contains(err.Error(), "corrupt input") {
		t.Fatalf("err = %v", err)
	}
}
