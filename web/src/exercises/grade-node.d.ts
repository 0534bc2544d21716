// Types of the headless grader (docs/exercises.md). Node on Linux: it starts a sandboxed process per submission.

/** One case of a verdict: its label, the largest |actual − expected| (null when there was no result). */
export interface CaseVerdict {
  input: string;
  maxAbsError: number | 'Infinity' | null;
  pass: boolean;
  /** Why the case has no comparable result (the function threw, returned a non-tensor or a wrong shape). */
  error?: string;
  /** The first element outside atol + rtol·|expected|: flat row-major index, its position, both values. */
  firstMismatch?: { index: number; position: number[]; actual: number | string; expected: number };
}

export interface Verdict {
  id: string;
  /** pass: every case close; fail: a value or a shape differs; error: load, export, throw, time or memory. */
  outcome: 'pass' | 'fail' | 'error';
  cases: CaseVerdict[];
  /** The first failing case and element, or null. */
  firstMismatch: { case: number; index: number; position: number[] } | null;
  /** What stopped the whole run (time limit, memory limit, no default export, a module that does not load). */
  error?: string;
}

/** The limits of each submission's process: 10 000 ms and 256 MB. */
export declare const GRADE_DEFAULTS: { timeoutMs: number; memoryMb: number };

export interface GradeOptions {
  /** Wall-clock limit of the submission's process, enforced from outside it (default 10 000). */
  timeoutMs?: number;
  /** The V8 heap's limit; the process's whole data segment (heap, Buffers, typed arrays, WebAssembly memory) is capped at this + 128 MB (default 256). */
  memoryMb?: number;
  /** Grade even where the submission cannot be isolated (no PID or network namespace, no memory limit): trusted code only. Where isolation works it is used all the same. */
  allowUnisolated?: boolean;
}

/**
 * Grades `source`, the text of an ES module whose default export is the exercise's entry function, against
 * exercise `id`, in a process of its own that cannot signal, trace or connect to this one (its own PID and
 * network namespaces, a memory limit, Node's permission model; docs/exercises.md). Resolves with a verdict
 * whatever the submission does (an `error` verdict for a crash, a time-out, replaced builtins, a broken reply). Rejects only for
 * an unknown id, a source that is not a string, an invalid option, this process's inspector being open, or a
 * machine where the submission cannot be isolated (unless `allowUnisolated`); the message names what is missing.
 * The first call makes this process ignore SIGUSR1 (which would otherwise open Node's inspector).
 */
export declare function gradeExercise(id: string, source: string, options?: GradeOptions): Promise<Verdict>;
