/**
 * University finance server: fee dues, payments, receipts, installments, scholarships,
 * refunds, salaries, reimbursements and financial reports. Run: node dist/mock-servers/finance.js
 */
import { officeTools } from './finance/office.js';
import { studentTools } from './finance/student.js';
import { serve } from './shared/tool.js';

serve('finance', [...studentTools, ...officeTools]);
