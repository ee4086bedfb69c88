//! `nc_copy_var` between two datasets of this library: the variable's
//! definition, attributes and data, taken from one dataset and defined in
//! another whose dimensions of the same names must already exist.

use super::consts::NcType;
use super::error::*;
use super::model::{Att, Dataset};
use super::types::Values;
use super::{NcError, NcResult};

/// A dimension of the copied variable: name, length, unlimited.
struct DimRef {
    name: String,
    len: u64,
    unlimited: bool,
}

/// A variable taken out of its dataset by [`Dataset::copy_var_out`].
pub struct VarCopy {
    name: String,
    nctype: NcType,
    dims: Vec<DimRef>,
    atts: Vec<Att>,
    /// Its data ([`Dataset::read_all`]'s form).
    values: Result<Values, Vec<String>>,
}

impl Dataset {
    /// Variable `varid` of group `gid`: definition, attributes and data.
    pub fn copy_var_out(&self, gid: usize, varid: i32) -> NcResult<VarCopy> {
        let v = self.var(gid, varid)?;
        let dims = v
            .dimids
            .iter()
            .map(|&d| DimRef {
                name: self.dims[d].name.clone(),
                len: self.dims[d].len,
                unlimited: self.dims[d].unlimited,
            })
            .collect();
        Ok(VarCopy {
            name: v.name.clone(),
            nctype: v.nctype,
            dims,
            atts: v.atts.clone(),
            values: self.read_all(gid, varid)?,
        })
    }

    /// Defines `copy` in group `gid` and writes its data; returns its
    /// varid. Each dimension is found by name from `gid` outwards
    /// (`NC_EBADDIM` if missing) and must have the same length, unless
    /// both are unlimited (`NC_EINVAL`).
    pub fn copy_var_in(&mut self, gid: usize, copy: VarCopy) -> NcResult<i32> {
        self.touch();
        let mut dimids = Vec::with_capacity(copy.dims.len());
        for d in &copy.dims {
            let id = self
                .find_dim(gid, &d.name)
                .ok_or_else(|| NcError::with(NC_EBADDIM, format!("no dimension {} for {}", d.name, copy.name)))?;
            if self.dims[id].len != d.len && !(d.unlimited && self.dims[id].unlimited) {
                return Err(NcError::with(NC_EINVAL, format!("dimension {} has another length", d.name)));
            }
            dimids.push(id as i32);
        }
        let varid = self.def_var(gid, &copy.name, copy.nctype, &dimids)? as i32;
        for a in copy.atts {
            self.put_att(gid, varid, &a.name, a.values)?;
        }
        self.write_all(gid, varid, &copy.values)?;
        Ok(varid)
    }
}
