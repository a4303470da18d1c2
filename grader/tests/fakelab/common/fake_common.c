/* fake_common.c — the fake course library: libcml.a needs at least one member. */
int fake_common_version(void) { return 1; }
