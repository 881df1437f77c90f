// Command serbench measures serialization formats, compression codecs and
// data paths on the machine it runs on. See `serbench --help`.
package main

import (
	"os"

	"github.com/serbench/serbench/cmd/serbench/internal/cli"
)

func main() { os.Exit(cli.Run()) }
