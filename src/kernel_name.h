/* kernel_name.h: a kernel's base name (KPROF_NAMES=base) and its number of parameters, read from its
 * demangled name (kernel_name.c). */
#ifndef KPROF_KERNEL_NAME_H
#define KPROF_KERNEL_NAME_H

/* The qualified function name of a demangled C++ name, without its return type, template arguments,
 * parameters and qualifiers, as Nsight Systems' `base` names read:
 *   void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, ...>(int, ...)
 * gives at::native::vectorized_elementwise_kernel.  Kept as they read: anonymous namespaces
 * ("(anonymous namespace)"), lambdas and other unnamed entities ("{lambda(int)#1}"), operator names
 * (operator(), operator<<, operator new[]...), and the scope of an entity local to a function (its
 * enclosing function's parameters and qualifiers dropped: f::{lambda()#1}::operator()).  A name without
 * a parameter list (a C name, a name that could not be demangled, "<unknown kernel ...>") or one that
 * does not parse (unbalanced brackets) is returned whole.
 * Returns a malloc'd string the caller frees, or NULL when out of memory.  Pure: thread-safe; linear
 * time in the length of the name, no recursion. */
char *kprof_kernel_base_name(const char *demangled);

/* The number of parameters in a demangled C++ function name's parameter list, as kprof_kernel_base_name
 * finds it: "kernel(float*, Blob<16, 2>, int)" has 3, "kernel()" 0; -1 for a name without one (a C name,
 * as Triton's and XLA's kernels have) or one that does not parse.  For cuFuncGetParamInfo, which answers
 * an error for an index past the last parameter (an error compute-sanitizer would report as the app's).
 * Pure: thread-safe; linear time, two allocations of the name's length (-1 when out of memory). */
int kprof_kernel_param_count(const char *demangled);

#endif
