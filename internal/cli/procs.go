package cli

import "runtime"

// importProcs is the most processors an import runs on. Its one writer
// (SQLite's write transaction) takes 36 % of an import's CPU, measured at
// GOMAXPROCS=1 over 205 MB of real transcripts (writeGroup and writeAlone
// 2.30 of 6.42 s); reading, parsing and compressing take the rest, so
// under two cores feed the writer all it can write, and the collector and
// the reads have the others. On the 16-core machine of issue 47 the
// import was fastest at GOMAXPROCS=4 (10.7 s, 33 s of CPU against 18 s
// and 103 s at the default, 16): each processor past the work's holds its
// own allocation caches, which the import's soft memory limit then
// collects against ([Main.batchGC]), and wakes idle collector workers and
// spinning threads.
const importProcs = 4

// batchProcs runs an import on no more processors than its work can use
// and the machine has, and returns what restores GOMAXPROCS. The machine's
// are the runtime's default (its cores, and a cgroup's CPU limit), not a
// GOMAXPROCS set higher: on 2 cores, GOMAXPROCS=16 made 16 processors take
// turns on 2, the import 1.26× as long and 1.25× the CPU (issue 47). A
// lower GOMAXPROCS is kept. Like the collector, GOMAXPROCS is the
// process's: it is set only when main runs this Main.
func (m *Main) batchProcs() (restore func()) {
	if !m.ownsProcess {
		return func() {}
	}
	set := runtime.GOMAXPROCS(0)
	runtime.SetDefaultGOMAXPROCS()
	machine := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(min(set, machine, importProcs))
	return func() {
		if set == machine {
			runtime.SetDefaultGOMAXPROCS() // the runtime follows a cgroup's changes again
		} else {
			runtime.GOMAXPROCS(set)
		}
	}
}
