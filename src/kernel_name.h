/* kernel_name.h: a kernel's base name (KPROF_NAMES=base), read from its demangled name (kernel_name.c). */
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

#endif
