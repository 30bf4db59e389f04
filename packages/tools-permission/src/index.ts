export type { PermissionConfig } from './permission-checker.js';
export { defaultPermissionConfig, PermissionChecker } from './permission-checker.js';
