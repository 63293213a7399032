package dev.idempotency.store;

/** How the store treats its table at start. */
public enum SchemaMode {
    /** Creates the table and its indexes when absent, then validates. */
    CREATE,
    /** Creates nothing; checks the table is usable and says precisely what is wrong if not. */
    VALIDATE,
    /** Creates and checks nothing (the operator vouches for the schema). */
    NONE
}
