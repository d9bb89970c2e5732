python/CMakeFiles/edgemt_python.dir/src/edgemt_module.cc.o: \
 /work/main/python/src/edgemt_module.cc /usr/include/stdc-predef.h \
 /usr/include/pybind11/functional.h /usr/include/pybind11/pybind11.h \
 /usr/include/pybind11/detail/class.h /usr/include/pybind11/attr.h \
 /usr/include/pybind11/detail/common.h /usr/include/python3.11/Python.h \
 /usr/include/python3.11/patchlevel.h /usr/include/python3.11/pyconfig.h \
 /usr/include/x86_64-linux-gnu/python3.11/pyconfig.h \
 /usr/include/python3.11/pymacconfig.h /usr/include/c++/12/stdlib.h \
 /usr/include/c++/12/cstdlib \
 /usr/include/x86_64-linux-gnu/c++/12/bits/c++config.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/os_defines.h \
 /usr/include/features.h /usr/include/features-time64.h \
 /usr/include/x86_64-linux-gnu/bits/wordsize.h \
 /usr/include/x86_64-linux-gnu/bits/timesize.h \
 /usr/include/x86_64-linux-gnu/sys/cdefs.h \
 /usr/include/x86_64-linux-gnu/bits/long-double.h \
 /usr/include/x86_64-linux-gnu/gnu/stubs.h \
 /usr/include/x86_64-linux-gnu/gnu/stubs-64.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/cpu_defines.h \
 /usr/include/c++/12/pstl/pstl_config.h /usr/include/stdlib.h \
 /usr/include/x86_64-linux-gnu/bits/libc-header-start.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 /usr/include/x86_64-linux-gnu/bits/waitflags.h \
 /usr/include/x86_64-linux-gnu/bits/waitstatus.h \
 /usr/include/x86_64-linux-gnu/bits/floatn.h \
 /usr/include/x86_64-linux-gnu/bits/floatn-common.h \
 /usr/include/x86_64-linux-gnu/bits/types/locale_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/__locale_t.h \
 /usr/include/x86_64-linux-gnu/sys/types.h \
 /usr/include/x86_64-linux-gnu/bits/types.h \
 /usr/include/x86_64-linux-gnu/bits/typesizes.h \
 /usr/include/x86_64-linux-gnu/bits/time64.h \
 /usr/include/x86_64-linux-gnu/bits/types/clock_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/clockid_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/time_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/timer_t.h \
 /usr/include/x86_64-linux-gnu/bits/stdint-intn.h /usr/include/endian.h \
 /usr/include/x86_64-linux-gnu/bits/endian.h \
 /usr/include/x86_64-linux-gnu/bits/endianness.h \
 /usr/include/x86_64-linux-gnu/bits/byteswap.h \
 /usr/include/x86_64-linux-gnu/bits/uintn-identity.h \
 /usr/include/x86_64-linux-gnu/sys/select.h \
 /usr/include/x86_64-linux-gnu/bits/select.h \
 /usr/include/x86_64-linux-gnu/bits/types/sigset_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/__sigset_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_timeval.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_timespec.h \
 /usr/include/x86_64-linux-gnu/bits/pthreadtypes.h \
 /usr/include/x86_64-linux-gnu/bits/thread-shared-types.h \
 /usr/include/x86_64-linux-gnu/bits/pthreadtypes-arch.h \
 /usr/include/x86_64-linux-gnu/bits/atomic_wide_counter.h \
 /usr/include/x86_64-linux-gnu/bits/struct_mutex.h \
 /usr/include/x86_64-linux-gnu/bits/struct_rwlock.h /usr/include/alloca.h \
 /usr/include/x86_64-linux-gnu/bits/stdlib-bsearch.h \
 /usr/include/x86_64-linux-gnu/bits/stdlib-float.h \
 /usr/include/c++/12/bits/std_abs.h /usr/include/stdio.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h \
 /usr/include/x86_64-linux-gnu/bits/types/__fpos_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/__mbstate_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/__fpos64_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/__FILE.h \
 /usr/include/x86_64-linux-gnu/bits/types/FILE.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_FILE.h \
 /usr/include/x86_64-linux-gnu/bits/types/cookie_io_functions_t.h \
 /usr/include/x86_64-linux-gnu/bits/stdio_lim.h \
 /usr/include/x86_64-linux-gnu/bits/stdio.h /usr/include/errno.h \
 /usr/include/x86_64-linux-gnu/bits/errno.h /usr/include/linux/errno.h \
 /usr/include/x86_64-linux-gnu/asm/errno.h \
 /usr/include/asm-generic/errno.h /usr/include/asm-generic/errno-base.h \
 /usr/include/x86_64-linux-gnu/bits/types/error_t.h /usr/include/string.h \
 /usr/include/strings.h /usr/include/unistd.h \
 /usr/include/x86_64-linux-gnu/bits/posix_opt.h \
 /usr/include/x86_64-linux-gnu/bits/environments.h \
 /usr/include/x86_64-linux-gnu/bits/confname.h \
 /usr/include/x86_64-linux-gnu/bits/getopt_posix.h \
 /usr/include/x86_64-linux-gnu/bits/getopt_core.h \
 /usr/include/x86_64-linux-gnu/bits/unistd_ext.h \
 /usr/include/linux/close_range.h /usr/include/assert.h \
 /usr/include/wchar.h /usr/include/x86_64-linux-gnu/bits/wchar.h \
 /usr/include/x86_64-linux-gnu/bits/types/wint_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/mbstate_t.h \
 /usr/include/python3.11/pyport.h /usr/include/inttypes.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h /usr/include/stdint.h \
 /usr/include/x86_64-linux-gnu/bits/stdint-uintn.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/limits.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/syslimits.h \
 /usr/include/limits.h /usr/include/x86_64-linux-gnu/bits/posix1_lim.h \
 /usr/include/x86_64-linux-gnu/bits/local_lim.h \
 /usr/include/linux/limits.h \
 /usr/include/x86_64-linux-gnu/bits/pthread_stack_min-dynamic.h \
 /usr/include/x86_64-linux-gnu/bits/posix2_lim.h \
 /usr/include/x86_64-linux-gnu/bits/xopen_lim.h \
 /usr/include/x86_64-linux-gnu/bits/uio_lim.h /usr/include/c++/12/math.h \
 /usr/include/c++/12/cmath /usr/include/c++/12/bits/cpp_type_traits.h \
 /usr/include/c++/12/ext/type_traits.h /usr/include/math.h \
 /usr/include/x86_64-linux-gnu/bits/math-vector.h \
 /usr/include/x86_64-linux-gnu/bits/libm-simd-decl-stubs.h \
 /usr/include/x86_64-linux-gnu/bits/flt-eval-method.h \
 /usr/include/x86_64-linux-gnu/bits/fp-logb.h \
 /usr/include/x86_64-linux-gnu/bits/fp-fast.h \
 /usr/include/x86_64-linux-gnu/bits/mathcalls-helper-functions.h \
 /usr/include/x86_64-linux-gnu/bits/mathcalls.h \
 /usr/include/x86_64-linux-gnu/bits/mathcalls-narrow.h \
 /usr/include/x86_64-linux-gnu/bits/iscanonical.h \
 /usr/include/c++/12/bits/specfun.h \
 /usr/include/c++/12/bits/stl_algobase.h \
 /usr/include/c++/12/bits/functexcept.h \
 /usr/include/c++/12/bits/exception_defines.h \
 /usr/include/c++/12/ext/numeric_traits.h \
 /usr/include/c++/12/bits/stl_pair.h /usr/include/c++/12/type_traits \
 /usr/include/c++/12/bits/move.h /usr/include/c++/12/bits/utility.h \
 /usr/include/c++/12/bits/stl_iterator_base_types.h \
 /usr/include/c++/12/bits/stl_iterator_base_funcs.h \
 /usr/include/c++/12/bits/concept_check.h \
 /usr/include/c++/12/debug/assertions.h \
 /usr/include/c++/12/bits/stl_iterator.h \
 /usr/include/c++/12/bits/ptr_traits.h /usr/include/c++/12/debug/debug.h \
 /usr/include/c++/12/bits/predefined_ops.h /usr/include/c++/12/limits \
 /usr/include/c++/12/tr1/gamma.tcc \
 /usr/include/c++/12/tr1/special_function_util.h \
 /usr/include/c++/12/tr1/bessel_function.tcc \
 /usr/include/c++/12/tr1/beta_function.tcc \
 /usr/include/c++/12/tr1/ell_integral.tcc \
 /usr/include/c++/12/tr1/exp_integral.tcc \
 /usr/include/c++/12/tr1/hypergeometric.tcc \
 /usr/include/c++/12/tr1/legendre_function.tcc \
 /usr/include/c++/12/tr1/modified_bessel_func.tcc \
 /usr/include/c++/12/tr1/poly_hermite.tcc \
 /usr/include/c++/12/tr1/poly_laguerre.tcc \
 /usr/include/c++/12/tr1/riemann_zeta.tcc \
 /usr/include/x86_64-linux-gnu/sys/time.h /usr/include/time.h \
 /usr/include/x86_64-linux-gnu/bits/time.h \
 /usr/include/x86_64-linux-gnu/bits/timex.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_tm.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_itimerspec.h \
 /usr/include/x86_64-linux-gnu/sys/stat.h \
 /usr/include/x86_64-linux-gnu/bits/stat.h \
 /usr/include/x86_64-linux-gnu/bits/struct_stat.h \
 /usr/include/x86_64-linux-gnu/bits/statx.h /usr/include/linux/stat.h \
 /usr/include/linux/types.h /usr/include/x86_64-linux-gnu/asm/types.h \
 /usr/include/asm-generic/types.h /usr/include/asm-generic/int-ll64.h \
 /usr/include/x86_64-linux-gnu/asm/bitsperlong.h \
 /usr/include/asm-generic/bitsperlong.h /usr/include/linux/posix_types.h \
 /usr/include/linux/stddef.h \
 /usr/include/x86_64-linux-gnu/asm/posix_types.h \
 /usr/include/x86_64-linux-gnu/asm/posix_types_64.h \
 /usr/include/asm-generic/posix_types.h \
 /usr/include/x86_64-linux-gnu/bits/statx-generic.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_statx_timestamp.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_statx.h \
 /usr/include/python3.11/exports.h /usr/include/python3.11/pymacro.h \
 /usr/include/python3.11/pymath.h /usr/include/python3.11/pymem.h \
 /usr/include/python3.11/cpython/pymem.h \
 /usr/include/python3.11/pytypedefs.h /usr/include/python3.11/pybuffer.h \
 /usr/include/python3.11/object.h \
 /usr/include/python3.11/cpython/object.h \
 /usr/include/python3.11/objimpl.h \
 /usr/include/python3.11/cpython/objimpl.h \
 /usr/include/python3.11/typeslots.h /usr/include/python3.11/pyhash.h \
 /usr/include/python3.11/cpython/pydebug.h \
 /usr/include/python3.11/bytearrayobject.h \
 /usr/include/python3.11/cpython/bytearrayobject.h \
 /usr/include/python3.11/bytesobject.h \
 /usr/include/python3.11/cpython/bytesobject.h \
 /usr/include/python3.11/unicodeobject.h /usr/include/ctype.h \
 /usr/include/python3.11/cpython/unicodeobject.h \
 /usr/include/python3.11/longobject.h \
 /usr/include/python3.11/cpython/longobject.h \
 /usr/include/python3.11/cpython/longintrepr.h \
 /usr/include/python3.11/boolobject.h \
 /usr/include/python3.11/floatobject.h \
 /usr/include/python3.11/cpython/floatobject.h \
 /usr/include/python3.11/complexobject.h \
 /usr/include/python3.11/cpython/complexobject.h \
 /usr/include/python3.11/rangeobject.h \
 /usr/include/python3.11/memoryobject.h \
 /usr/include/python3.11/tupleobject.h \
 /usr/include/python3.11/cpython/tupleobject.h \
 /usr/include/python3.11/listobject.h \
 /usr/include/python3.11/cpython/listobject.h \
 /usr/include/python3.11/dictobject.h \
 /usr/include/python3.11/cpython/dictobject.h \
 /usr/include/python3.11/cpython/odictobject.h \
 /usr/include/python3.11/enumobject.h /usr/include/python3.11/setobject.h \
 /usr/include/python3.11/cpython/setobject.h \
 /usr/include/python3.11/methodobject.h \
 /usr/include/python3.11/cpython/methodobject.h \
 /usr/include/python3.11/moduleobject.h \
 /usr/include/python3.11/cpython/funcobject.h \
 /usr/include/python3.11/cpython/classobject.h \
 /usr/include/python3.11/fileobject.h \
 /usr/include/python3.11/cpython/fileobject.h \
 /usr/include/python3.11/pycapsule.h \
 /usr/include/python3.11/cpython/code.h /usr/include/python3.11/pyframe.h \
 /usr/include/python3.11/cpython/pyframe.h \
 /usr/include/python3.11/traceback.h \
 /usr/include/python3.11/cpython/traceback.h \
 /usr/include/python3.11/sliceobject.h \
 /usr/include/python3.11/cpython/cellobject.h \
 /usr/include/python3.11/iterobject.h \
 /usr/include/python3.11/cpython/initconfig.h \
 /usr/include/python3.11/pystate.h \
 /usr/include/python3.11/cpython/pystate.h \
 /usr/include/python3.11/cpython/genobject.h \
 /usr/include/python3.11/descrobject.h \
 /usr/include/python3.11/cpython/descrobject.h \
 /usr/include/python3.11/genericaliasobject.h \
 /usr/include/python3.11/warnings.h \
 /usr/include/python3.11/cpython/warnings.h \
 /usr/include/python3.11/weakrefobject.h \
 /usr/include/python3.11/cpython/weakrefobject.h \
 /usr/include/python3.11/structseq.h \
 /usr/include/python3.11/cpython/picklebufobject.h \
 /usr/include/python3.11/cpython/pytime.h \
 /usr/include/python3.11/codecs.h /usr/include/python3.11/pyerrors.h \
 /usr/include/python3.11/cpython/pyerrors.h \
 /usr/include/python3.11/pythread.h \
 /usr/include/python3.11/cpython/pythread.h /usr/include/pthread.h \
 /usr/include/sched.h /usr/include/x86_64-linux-gnu/bits/sched.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_sched_param.h \
 /usr/include/x86_64-linux-gnu/bits/cpu-set.h \
 /usr/include/x86_64-linux-gnu/bits/setjmp.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct___jmp_buf_tag.h \
 /usr/include/python3.11/cpython/context.h \
 /usr/include/python3.11/modsupport.h \
 /usr/include/python3.11/cpython/modsupport.h \
 /usr/include/python3.11/compile.h \
 /usr/include/python3.11/cpython/compile.h \
 /usr/include/python3.11/pythonrun.h \
 /usr/include/python3.11/cpython/pythonrun.h \
 /usr/include/python3.11/pylifecycle.h \
 /usr/include/python3.11/cpython/pylifecycle.h \
 /usr/include/python3.11/ceval.h /usr/include/python3.11/cpython/ceval.h \
 /usr/include/python3.11/sysmodule.h \
 /usr/include/python3.11/cpython/sysmodule.h \
 /usr/include/python3.11/osmodule.h /usr/include/python3.11/intrcheck.h \
 /usr/include/python3.11/import.h \
 /usr/include/python3.11/cpython/import.h \
 /usr/include/python3.11/abstract.h \
 /usr/include/python3.11/cpython/abstract.h \
 /usr/include/python3.11/bltinmodule.h \
 /usr/include/python3.11/cpython/pyctype.h \
 /usr/include/python3.11/pystrtod.h /usr/include/python3.11/pystrcmp.h \
 /usr/include/python3.11/fileutils.h \
 /usr/include/python3.11/cpython/fileutils.h \
 /usr/include/python3.11/cpython/pyfpe.h \
 /usr/include/python3.11/tracemalloc.h \
 /usr/include/python3.11/frameobject.h \
 /usr/include/python3.11/cpython/frameobject.h \
 /usr/include/python3.11/pythread.h /usr/include/c++/12/cstddef \
 /usr/include/c++/12/cstring /usr/include/c++/12/exception \
 /usr/include/c++/12/bits/exception.h \
 /usr/include/c++/12/bits/exception_ptr.h \
 /usr/include/c++/12/bits/cxxabi_init_exception.h \
 /usr/include/c++/12/typeinfo /usr/include/c++/12/bits/hash_bytes.h \
 /usr/include/c++/12/new /usr/include/c++/12/bits/nested_exception.h \
 /usr/include/c++/12/forward_list /usr/include/c++/12/bits/forward_list.h \
 /usr/include/c++/12/initializer_list \
 /usr/include/c++/12/bits/stl_function.h \
 /usr/include/c++/12/backward/binders.h \
 /usr/include/c++/12/bits/allocator.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/c++allocator.h \
 /usr/include/c++/12/bits/new_allocator.h \
 /usr/include/c++/12/bits/memoryfwd.h \
 /usr/include/c++/12/ext/alloc_traits.h \
 /usr/include/c++/12/bits/alloc_traits.h \
 /usr/include/c++/12/bits/stl_construct.h \
 /usr/include/c++/12/ext/aligned_buffer.h \
 /usr/include/c++/12/bits/range_access.h \
 /usr/include/c++/12/bits/forward_list.tcc /usr/include/c++/12/memory \
 /usr/include/c++/12/bits/stl_uninitialized.h \
 /usr/include/c++/12/bits/stl_tempbuf.h \
 /usr/include/c++/12/bits/stl_raw_storage_iter.h \
 /usr/include/c++/12/bits/align.h /usr/include/c++/12/bit \
 /usr/include/c++/12/bits/uses_allocator.h \
 /usr/include/c++/12/bits/unique_ptr.h /usr/include/c++/12/tuple \
 /usr/include/c++/12/bits/invoke.h \
 /usr/include/c++/12/bits/functional_hash.h \
 /usr/include/c++/12/bits/shared_ptr.h /usr/include/c++/12/iosfwd \
 /usr/include/c++/12/bits/stringfwd.h /usr/include/c++/12/bits/postypes.h \
 /usr/include/c++/12/cwchar /usr/include/c++/12/bits/shared_ptr_base.h \
 /usr/include/c++/12/bits/allocated_ptr.h \
 /usr/include/c++/12/bits/refwrap.h /usr/include/c++/12/ext/atomicity.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/gthr.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/gthr-default.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/atomic_word.h \
 /usr/include/x86_64-linux-gnu/sys/single_threaded.h \
 /usr/include/c++/12/ext/concurrence.h \
 /usr/include/c++/12/bits/shared_ptr_atomic.h \
 /usr/include/c++/12/bits/atomic_base.h \
 /usr/include/c++/12/bits/atomic_lockfree_defines.h \
 /usr/include/c++/12/backward/auto_ptr.h \
 /usr/include/c++/12/pstl/glue_memory_defs.h \
 /usr/include/c++/12/pstl/execution_defs.h /usr/include/c++/12/stdexcept \
 /usr/include/c++/12/string /usr/include/c++/12/bits/char_traits.h \
 /usr/include/c++/12/cstdint /usr/include/c++/12/bits/localefwd.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/c++locale.h \
 /usr/include/c++/12/clocale /usr/include/locale.h \
 /usr/include/x86_64-linux-gnu/bits/locale.h /usr/include/c++/12/cctype \
 /usr/include/c++/12/bits/ostream_insert.h \
 /usr/include/c++/12/bits/cxxabi_forced.h \
 /usr/include/c++/12/bits/basic_string.h /usr/include/c++/12/string_view \
 /usr/include/c++/12/bits/string_view.tcc \
 /usr/include/c++/12/ext/string_conversions.h /usr/include/c++/12/cstdio \
 /usr/include/c++/12/cerrno /usr/include/c++/12/bits/charconv.h \
 /usr/include/c++/12/bits/basic_string.tcc /usr/include/c++/12/typeindex \
 /usr/include/c++/12/unordered_map /usr/include/c++/12/bits/hashtable.h \
 /usr/include/c++/12/bits/hashtable_policy.h \
 /usr/include/c++/12/bits/enable_special_members.h \
 /usr/include/c++/12/bits/node_handle.h \
 /usr/include/c++/12/bits/unordered_map.h \
 /usr/include/c++/12/bits/erase_if.h /usr/include/c++/12/unordered_set \
 /usr/include/c++/12/bits/unordered_set.h /usr/include/c++/12/vector \
 /usr/include/c++/12/bits/stl_vector.h \
 /usr/include/c++/12/bits/stl_bvector.h \
 /usr/include/c++/12/bits/vector.tcc /usr/include/c++/12/version \
 /usr/include/pybind11/cast.h /usr/include/pybind11/detail/descr.h \
 /usr/include/pybind11/detail/type_caster_base.h \
 /usr/include/pybind11/pytypes.h /usr/include/pybind11/buffer_info.h \
 /usr/include/c++/12/iterator /usr/include/c++/12/bits/stream_iterator.h \
 /usr/include/c++/12/bits/streambuf_iterator.h \
 /usr/include/c++/12/streambuf /usr/include/c++/12/bits/ios_base.h \
 /usr/include/c++/12/bits/locale_classes.h \
 /usr/include/c++/12/bits/locale_classes.tcc \
 /usr/include/c++/12/system_error \
 /usr/include/x86_64-linux-gnu/c++/12/bits/error_constants.h \
 /usr/include/c++/12/bits/streambuf.tcc /usr/include/c++/12/utility \
 /usr/include/c++/12/bits/stl_relops.h /usr/include/c++/12/optional \
 /usr/include/pybind11/detail/internals.h \
 /usr/include/pybind11/detail/typeid.h /usr/include/c++/12/cxxabi.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/cxxabi_tweaks.h \
 /usr/include/c++/12/array /usr/include/c++/12/compare \
 /usr/include/c++/12/functional /usr/include/c++/12/bits/std_function.h \
 /usr/include/c++/12/bits/stl_algo.h \
 /usr/include/c++/12/bits/algorithmfwd.h \
 /usr/include/c++/12/bits/stl_heap.h \
 /usr/include/c++/12/bits/uniform_int_dist.h \
 /usr/include/pybind11/options.h /usr/include/pybind11/detail/init.h \
 /usr/include/pybind11/gil.h /usr/include/pybind11/stl.h \
 /usr/include/c++/12/deque /usr/include/c++/12/bits/stl_deque.h \
 /usr/include/c++/12/bits/deque.tcc /usr/include/c++/12/list \
 /usr/include/c++/12/bits/stl_list.h /usr/include/c++/12/bits/list.tcc \
 /usr/include/c++/12/map /usr/include/c++/12/bits/stl_tree.h \
 /usr/include/c++/12/bits/stl_map.h \
 /usr/include/c++/12/bits/stl_multimap.h /usr/include/c++/12/ostream \
 /usr/include/c++/12/ios /usr/include/c++/12/bits/basic_ios.h \
 /usr/include/c++/12/bits/locale_facets.h /usr/include/c++/12/cwctype \
 /usr/include/wctype.h /usr/include/x86_64-linux-gnu/bits/wctype-wchar.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/ctype_base.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/ctype_inline.h \
 /usr/include/c++/12/bits/locale_facets.tcc \
 /usr/include/c++/12/bits/basic_ios.tcc \
 /usr/include/c++/12/bits/ostream.tcc /usr/include/c++/12/set \
 /usr/include/c++/12/bits/stl_set.h \
 /usr/include/c++/12/bits/stl_multiset.h /usr/include/c++/12/valarray \
 /usr/include/c++/12/algorithm \
 /usr/include/c++/12/pstl/glue_algorithm_defs.h \
 /usr/include/c++/12/bits/valarray_array.h \
 /usr/include/c++/12/bits/valarray_array.tcc \
 /usr/include/c++/12/bits/valarray_before.h \
 /usr/include/c++/12/bits/slice_array.h \
 /usr/include/c++/12/bits/valarray_after.h \
 /usr/include/c++/12/bits/gslice.h \
 /usr/include/c++/12/bits/gslice_array.h \
 /usr/include/c++/12/bits/mask_array.h \
 /usr/include/c++/12/bits/indirect_array.h /usr/include/c++/12/variant \
 /usr/include/c++/12/bits/parse_numbers.h /usr/include/c++/12/mutex \
 /usr/include/c++/12/bits/chrono.h /usr/include/c++/12/ratio \
 /usr/include/c++/12/ctime /usr/include/c++/12/bits/std_mutex.h \
 /usr/include/c++/12/bits/unique_lock.h \
 /work/main/runtime/include/edgemt/model.h \
 /work/main/runtime/include/edgemt/status.h \
 /work/main/runtime/include/edgemt/text_translator.h \
 /work/main/runtime/include/edgemt/translator.h
