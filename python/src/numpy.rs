//! NumPy arrays through NumPy's own Python API (`frombuffer`, `ascontiguousarray`), so
//! that one abi3 wheel serves every NumPy and Python version.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyByteArray;

/// A writable float32 array of `shape` holding `values` (row-major).
pub fn array_f32<'py>(py: Python<'py>, values: &[f32], shape: &[usize]) -> PyResult<Bound<'py, PyAny>> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let buffer = PyByteArray::new(py, &bytes);
    let numpy = py.import("numpy")?;
    let flat = numpy.call_method1("frombuffer", (buffer, "float32"))?;
    flat.call_method1("reshape", (shape.to_vec(),))
}

/// The values of `object` (any array-like) as float32, row-major, checked to number
/// `expected` (`what` names it in the error).
pub fn read_f32(py: Python<'_>, object: &Bound<'_, PyAny>, expected: usize, what: &str) -> PyResult<Vec<f32>> {
    let numpy = py.import("numpy")?;
    let array = numpy.call_method1("ascontiguousarray", (object, "float32"))?;
    let size: usize = array.getattr("size")?.extract()?;
    if size != expected {
        let shape = array.getattr("shape")?.str()?.to_string();
        return Err(PyValueError::new_err(format!("{what}: {size} values (shape {shape}), expected {expected}")));
    }
    let bytes = array.call_method0("tobytes")?;
    let bytes: &[u8] = bytes.extract()?;
    Ok(bytes.chunks_exact(4).map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]])).collect())
}
