// Types of the headless grader (docs/exercises.md). Node only: it starts a child process per submission.

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

/**
 * Grades `source`, the text of an ES module whose default export is the exercise's entry function, against
 * exercise `id` in a child Node process under the permission model. Rejects only for an unknown id or a
 * source that is not a string.
 */
export declare function gradeExercise(id: string, source: string, options?: { timeoutMs?: number; memoryMb?: number }): Promise<Verdict>;
