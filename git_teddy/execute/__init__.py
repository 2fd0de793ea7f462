"""Executing a plan: approvals, a throwaway worktree, the actions, the report, applying back."""
