package interop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/serbench/serbench/digest"
	"github.com/serbench/serbench/runner"
)

// outcome is what a runner said of one case.
type outcome struct {
	ok      bool
	reason  string
	hold    bool // the runner said cannot hold
	bytes   int64
	ns      int64
	digest  *digest.Result
	present bool
}

// invoke runs rd's runner on cases in work (whose datasets and tmp the
// caller prepared) and returns each case's outcome by id; the string is
// why every case lacks one when the runner could not be run at all.
func (p *plan) invoke(ctx context.Context, rd *runner.Ready, work string, cases []runner.Case) (map[string]*outcome, string) {
	p.m.Invocations++
	checked, err := rd.Runner.Check(ctx, work, cases)
	if err != nil {
		return nil, fmt.Sprintf("runner %s: %v", rd.Runner.Name, err)
	}
	res := make(map[string]*outcome, len(checked))
	for id, c := range checked {
		res[id] = &outcome{present: true, ok: c.OK, reason: c.Reason, hold: c.CannotHold, bytes: c.EncodedBytes, ns: int64(c.Elapsed), digest: c.Digest}
	}
	return res, ""
}

// workDir creates a work directory for one invocation of rd: tmp/ and the
// dataset linked under datasets/.
func (p *plan) workDir(name string, rd *runner.Ready) (string, error) {
	work := filepath.Join(p.dir, name)
	if err := os.RemoveAll(work); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(work, "tmp"), 0o755); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(work, "datasets"), 0o755); err != nil {
		return "", err
	}
	src, err := p.datasetDir(rd.Hello.WantsJSONL())
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		return "", err
	}
	return work, os.Symlink(abs, filepath.Join(work, "datasets", p.ds.Name))
}

// datasetDir writes the dataset's files once (runner.WriteDataset), with
// data.jsonl when a runner that reads it asks.
func (p *plan) datasetDir(jsonl bool) (string, error) {
	dir := filepath.Join(p.dir, "dataset", p.ds.Name)
	return dir, runner.WriteDataset(dir, p.ds.Schema, p.ds.Batches, jsonl)
}

// runnerExport runs every export case of rd's subjects in one invocation
// and moves their files to dir/files.
func (p *plan) runnerExport(ctx context.Context, rd *runner.Ready) {
	type job struct {
		f    *Format
		name string
		file string
	}
	var jobs []job
	var cases []runner.Case
	for _, f := range p.formats {
		for _, w := range p.m.Parties[f.Name] {
			if w.ready != rd {
				continue
			}
			file := fileName(f, w.Name)
			id := "interop/export/" + f.Name + "/" + w.Subject
			jobs = append(jobs, job{f, w.Name, file})
			cases = append(cases, p.fileCase(id, w.Subject, runner.OpExport, file))
		}
	}
	if len(cases) == 0 {
		return
	}
	lang := rd.Hello.Language
	work, err := p.workDir("work-"+lang+"-export", rd)
	var res map[string]*outcome
	why := ""
	if err != nil {
		why = "interop work directory: " + err.Error()
	} else {
		t0 := time.Now()
		res, why = p.invoke(ctx, rd, work, cases)
		p.logf("interop: %s exported %d files in %s", lang, len(cases), time.Since(t0).Round(time.Millisecond))
	}
	for i, j := range jobs {
		w := &written{}
		p.written[key(j.f, j.name)] = w
		o := res[cases[i].ID]
		switch {
		case o == nil:
			w.err = why
			continue
		case !o.ok:
			w.err, w.hold = "export failed: "+o.reason, o.hold
		}
		src := filepath.Join(work, "tmp", j.file)
		if _, err := os.Stat(src); err != nil {
			if w.err == "" {
				w.err = "export reported ok but wrote no file"
			}
			continue
		}
		dst := filepath.Join(p.files, j.file)
		if err := os.Rename(src, dst); err != nil {
			w.err = "interop: " + err.Error()
			continue
		}
		w.path, w.bytes, w.ns, w.digest = dst, fileSize(dst), o.ns, o.digest
		if o.ok && o.digest == nil {
			w.err = "export reported no digest"
		}
		if !o.ok {
			// the file exists but the writer could not read it back: others may
			w.err = "its writer could not read it back: " + o.reason
		}
	}
	if work != "" {
		_ = os.RemoveAll(work)
	}
}

// runnerImport runs, in one invocation, every import of a file of another
// party by each of rd's subjects of that file's format.
func (p *plan) runnerImport(ctx context.Context, rd *runner.Ready) {
	type job struct{ k [2]string }
	var jobs []job
	var cases []runner.Case
	var links [][2]string
	linked := map[string]bool{}
	for _, f := range p.formats {
		ps := p.m.Parties[f.Name]
		for _, r := range ps {
			if r.ready != rd {
				continue
			}
			for _, w := range ps {
				wr := p.written[key(f, w.Name)]
				if w.Name == r.Name || wr == nil || wr.path == "" {
					continue
				}
				file := filepath.Base(wr.path)
				if !linked[file] {
					linked[file] = true
					links = append(links, [2]string{wr.path, file})
				}
				id := "interop/import/" + f.Name + "/" + w.Name + "/" + r.Subject
				jobs = append(jobs, job{[2]string{key(f, w.Name), r.Name}})
				cases = append(cases, p.fileCase(id, r.Subject, runner.OpImport, file))
			}
		}
	}
	if len(cases) == 0 {
		return
	}
	lang := rd.Hello.Language
	work, err := p.workDir("work-"+lang+"-import", rd)
	var res map[string]*outcome
	why := ""
	if err == nil {
		for _, l := range links {
			if err = link(l[0], filepath.Join(work, "tmp", l[1])); err != nil {
				break
			}
		}
	}
	if err != nil {
		why = "interop work directory: " + err.Error()
	} else {
		t0 := time.Now()
		res, why = p.invoke(ctx, rd, work, cases)
		p.logf("interop: %s read %d files in %s", lang, len(cases), time.Since(t0).Round(time.Millisecond))
	}
	for i, j := range jobs {
		o := res[cases[i].ID]
		switch {
		case o == nil:
			p.reads[j.k] = &read{err: why}
		case !o.ok:
			p.reads[j.k] = &read{err: o.reason, hold: o.hold}
		default:
			p.reads[j.k] = &read{digest: o.digest, ns: o.ns}
		}
	}
	if work != "" {
		_ = os.RemoveAll(work)
	}
}

// fileCase is the case of one export or import of file by subject.
func (p *plan) fileCase(id, subject, op, file string) runner.Case {
	return runner.Case{ID: id, Subject: subject, Role: "subject", Op: op, Dataset: p.ds.Name, Size: int(p.m.Rows),
		Count: 1, MinCount: 1, Params: map[string]string{}, Path: "tmp/" + file}
}
