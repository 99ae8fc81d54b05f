/**
 * University hostel server: rooms, leave, mess, visitors, maintenance and warden tools.
 * Run: node dist/mock-servers/hostel.js
 */
import { officeTools } from './hostel/office.js';
import { studentTools } from './hostel/student.js';
import { serve } from './shared/tool.js';

serve('hostel', [...studentTools, ...officeTools]);
