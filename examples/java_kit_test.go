package examples

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestJavaKitRunner installs the JVM runner kit (mvn install in
// runners/jvm, into the user's local Maven repository), builds
// examples/runner-java against it — an outside runner for Java's built-in
// serialization, a library serbench does not ship, whose code is only an
// encode, a decode and Kit.main — and runs it through --runner as its
// user would: runner check conforms, and a records run measures
// java-ser:object-stream.
func TestJavaKitRunner(t *testing.T) {
	if testing.Short() {
		t.Skip("installs the JVM kit with Maven, builds a runner and measures it")
	}
	for _, tool := range []string{"mvn", "java"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	mvn := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("mvn", append([]string{"-q", "-B", "-ntp"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("mvn %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
		}
	}
	mvn(filepath.Join("..", "runners", "jvm"), "install", "-DskipTests")
	mvn("runner-java", "package")
	bin := build(t, "../cmd/serbench", "serbench")
	const command = "java -jar runner-java/target/java-ser-runner.jar"
	if out := serbench(t, ".", 0, bin, "runner", "check", command); !strings.Contains(out, "conforms to protocol") {
		t.Errorf("runner check:\n%s", out)
	}
	out := filepath.Join(t.TempDir(), "run")
	serbench(t, ".", 0, bin, "run", "records", "--runners", "none", "--runner", "java-ser="+command, "--subject", "java-ser", "--count", "3", "--target", "0", "--budget", "0", "--out", out, "--progress", "none")
	measured(t, out, "java-ser:object-stream")
}
