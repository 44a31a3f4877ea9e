package main

import "github.com/cutroom/cutroom/editor"

// renderFeatures is what this build's renderer draws, advertised by capabilities and
// checked at export creation.
func renderFeatures() editor.FeatureSet { return editor.FeatureSet{} }
