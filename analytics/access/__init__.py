"""Who may do what: the roles file and the table of pages and actions by role."""
