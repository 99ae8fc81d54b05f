/**
 * User and role administration: accounts, roles, permissions. Changes here govern who
 * may perform staff actions on every server (requireEmployee reads user_roles).
 */
import { z } from 'zod';
import { asEmployee, userId } from '../shared/args.js';
import { all, found, nowIso, one, requireEmployee } from '../shared/lookup.js';
import { defineTool, ToolError } from '../shared/tool.js';
import type { Db } from '../shared/db.js';

const role = z.string().regex(/^[a-z_]+$/, 'role must be a role name such as librarian').describe('Role name, e.g. librarian, warden, exam_controller (get_role_permissions lists them).');

function requireUser(db: Db, id: string): { user_id: string; name: string; kind: string; status: string } {
  return found(one(db, 'SELECT user_id, name, kind, status FROM users WHERE user_id = ?', id), `Unknown user_id '${id}': no such portal account.`);
}

function requireRole(db: Db, name: string): void {
  if (!one(db, 'SELECT 1 FROM roles WHERE role = ?', name)) throw new ToolError(`Unknown role '${name}'; known roles: ${all<{ role: string }>(db, 'SELECT role FROM roles ORDER BY role').map((r) => r.role).join(', ')}.`);
}

export const accountTools = [
  defineTool({
    name: 'list_users',
    description: 'Returns portal user accounts (id, name, kind, status, roles), optionally filtered by kind, status or role.',
    input: { kind: z.enum(['student', 'faculty', 'staff']).optional().describe('Only this kind of account.'), status: z.enum(['active', 'deactivated']).optional().describe('Only this status.'), role: role.optional() },
    run: ({ kind, status, role: r }, db) => all(db, `SELECT u.user_id, u.name, u.kind, u.status, GROUP_CONCAT(ur.role, ', ') AS roles FROM users u LEFT JOIN user_roles ur ON ur.user_id = u.user_id
      WHERE (@k IS NULL OR u.kind = @k) AND (@s IS NULL OR u.status = @s) AND (@r IS NULL OR EXISTS (SELECT 1 FROM user_roles x WHERE x.user_id = u.user_id AND x.role = @r))
      GROUP BY u.user_id ORDER BY u.user_id`, { k: kind ?? null, s: status ?? null, r: r ?? null }),
  }),
  defineTool({
    name: 'get_user_roles',
    description: 'Returns one account\'s status and roles, each with who granted it and when.',
    input: { user_id: userId.describe('Account id: S0001, F001 or E001 style.') },
    run: ({ user_id }, db) => ({ ...requireUser(db, user_id), roles: all(db, 'SELECT role, granted_by, granted_at FROM user_roles WHERE user_id = ? ORDER BY role', user_id) }),
  }),
  defineTool({
    name: 'get_role_permissions',
    description: 'Returns the platform roles with their description, what each permits, and how many accounts hold it, or one role.',
    input: { role: role.optional() },
    run: ({ role: r }, db) => {
      if (r) requireRole(db, r);
      return all(db, 'SELECT r.role, r.description, r.permissions, (SELECT COUNT(*) FROM user_roles u WHERE u.role = r.role) AS holders FROM roles r WHERE (@r IS NULL OR r.role = @r) ORDER BY r.role', { r: r ?? null });
    },
  }),
  defineTool({
    name: 'assign_role',
    description: 'Administrator: grants a role to an active account (e.g. make a staff member a warden or librarian). Returns the account\'s roles after the change.',
    action: true,
    input: { ...asEmployee, user_id: userId.describe('Account receiving the role.'), role },
    run: ({ employee_id, user_id, role: r }, db) => {
      requireEmployee(db, employee_id, []);
      const u = requireUser(db, user_id);
      requireRole(db, r);
      if (u.status !== 'active') throw new ToolError(`${user_id} is ${u.status}; reactivate the account first.`);
      if (one(db, 'SELECT 1 FROM user_roles WHERE user_id = ? AND role = ?', user_id, r)) throw new ToolError(`${user_id} already has the role ${r}.`);
      db.prepare('INSERT INTO user_roles (user_id, role, granted_by, granted_at) VALUES (?, ?, ?, ?)').run(user_id, r, employee_id, nowIso());
      return { user_id, roles: all<{ role: string }>(db, 'SELECT role FROM user_roles WHERE user_id = ? ORDER BY role', user_id).map((x) => x.role) };
    },
  }),
  defineTool({
    name: 'create_user_account',
    description: 'Administrator: creates a portal account for a new staff member with an initial role. Returns the new account.',
    action: true,
    input: { ...asEmployee, user_id: z.string().regex(/^E\d{3}$/, 'new staff user_id must look like E021').describe('New staff id, E021 or above.'), name: z.string().min(3, 'name is required').describe('Full name.'), email: z.string().email('email must be a valid address').describe('Official email.'), role },
    run: ({ employee_id, user_id, name, email, role: r }, db) => {
      requireEmployee(db, employee_id, []);
      requireRole(db, r);
      if (one(db, 'SELECT 1 FROM users WHERE user_id = ?', user_id)) throw new ToolError(`user_id ${user_id} already exists.`);
      db.prepare("INSERT INTO users (user_id, name, email, kind, status, created_at) VALUES (?, ?, ?, 'staff', 'active', ?)").run(user_id, name, email, nowIso());
      db.prepare("INSERT INTO employees (employee_id, name, email, title, office) VALUES (?, ?, ?, ?, 'Administrative Block')").run(user_id, name, email, r);
      db.prepare('INSERT INTO user_roles (user_id, role, granted_by, granted_at) VALUES (?, ?, ?, ?)').run(user_id, r, employee_id, nowIso());
      return { user_id, name, kind: 'staff', status: 'active', roles: [r] };
    },
  }),
  defineTool({
    name: 'deactivate_user_account',
    description: 'Administrator: deactivates a portal account (graduated, left, compromised); the user can no longer sign in or act with their roles. Returns the deactivated account.',
    action: true,
    destructive: true,
    input: { ...asEmployee, user_id: userId.describe('Account to deactivate.'), reason: z.string().min(3, 'reason is required').describe('Why the account is deactivated.') },
    run: ({ employee_id, user_id, reason }, db) => {
      requireEmployee(db, employee_id, []);
      const u = requireUser(db, user_id);
      if (user_id === employee_id) throw new ToolError('An administrator cannot deactivate their own account.');
      if (u.status !== 'active') throw new ToolError(`${user_id} is already ${u.status}.`);
      db.prepare("UPDATE users SET status = 'deactivated' WHERE user_id = ?").run(user_id);
      return { user_id, name: u.name, status: 'deactivated', reason };
    },
  }),
];
