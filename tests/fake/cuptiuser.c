/* cuptiuser.c: libcuptiuser.so, a library linked against CUPTI (the fake one) and dlopened without
 * RTLD_GLOBAL, as Python loads libtorch: CUPTI is then in its local scope only, not in the global one
 * that a preloaded library searches with RTLD_NEXT. */
int cuptiActivityEnable(int kind);
int cuptiActivityDisable(int kind);
int fakecupti_kind_on(int kind);

int cuptiuser_enable(int kind) { return cuptiActivityEnable(kind); }
int cuptiuser_disable(int kind) { return cuptiActivityDisable(kind); }
int cuptiuser_on(int kind) { return fakecupti_kind_on(kind); }
