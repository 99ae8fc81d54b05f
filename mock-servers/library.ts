/**
 * University library server: catalogue, loans, renewals, reservations, fines, study
 * rooms and librarian tools. Run: node dist/mock-servers/library.js
 */
import { librarianTools } from './library/librarian.js';
import { memberTools } from './library/member.js';
import { serve } from './shared/tool.js';

serve('library', [...memberTools, ...librarianTools]);
