/** Library rules shared by member and librarian tools: availability, limits, fines. */
import { z } from 'zod';
import type { Db } from '../shared/db.js';
import { daysBetween } from '../shared/dates.js';
import { LIBRARY_FINE_PER_DAY, TODAY } from '../shared/fixture.js';
import { found, one } from '../shared/lookup.js';

export const bookId = z.string().regex(/^B\d{3}$/, 'book_id must look like B001').describe('Book id, e.g. B001 (search_library_catalogue).');
export const LOAN_DAYS = { student: 21, faculty: 60 };
export const RENEW_DAYS = { student: 14, faculty: 30 };
export const LOAN_LIMIT = { student: 4, faculty: 10 };
export const MAX_RENEWALS = 2;

export const kindOf = (memberId: string): 'student' | 'faculty' => (memberId.startsWith('S') ? 'student' : 'faculty');

export interface Book { book_id: string; title: string; author: string; isbn: string; subject: string; copies: number; location: string; added_on: string }

export function requireBook(db: Db, id: string): Book {
  return found(one<Book>(db, 'SELECT * FROM books WHERE book_id = ?', id), `Unknown book_id '${id}': no such book; search_library_catalogue finds books.`);
}

export function availableCopies(db: Db, id: string): number {
  const book = requireBook(db, id);
  return book.copies - one<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM loans WHERE book_id = ? AND returned_on IS NULL', id)!.n;
}

/** Fine accruing on a loan not yet returned (or the fine a return today would assess). */
export function accruingFine(dueOn: string, until = TODAY): number {
  return Math.max(0, daysBetween(dueOn, until)) * LIBRARY_FINE_PER_DAY;
}
