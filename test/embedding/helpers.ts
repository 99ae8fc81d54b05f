/** Small vector helpers for the embedding tests. */

/** Inner product; equals cosine for unit vectors. */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Largest absolute difference between two vectors of the same length. */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

/** Tool descriptions of a small catalog (the reference servers' wording). */
export const TOOL_TEXTS = [
  'Read the complete contents of a file from the file system',
  'Create a new entity in the knowledge graph',
  'List all files and directories in a given path',
  'Write content to a file, overwriting it if it exists',
  'Get the attendance summary of a student for the current semester',
  'Pay the outstanding fee dues of a student',
  'Search for nodes in the knowledge graph by name or observation',
  'Submit a formal grievance to the administration',
  'Get the exam eligibility of a student',
  'Move or rename a file or directory',
];
